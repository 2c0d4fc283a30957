"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import { useTRPC, useTRPCClient } from "@/app/trpc/client";
import { StatusBadge } from "@/app/ui/badge";
import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { EvaluationView } from "./evaluation-view";
import { formatValue } from "./gate-data";
import { Heading } from "./heading";
import { LinkOrText, LongText } from "./long-text";
import { prettyJson } from "./text-format";
import type { AttemptDetail as Detail } from "./types";

/** Tool calls per request: an attempt can make hundreds. */
const TOOL_CALL_PAGE = 50;

/**
 * Everything under one attempt, loaded when it is opened: prompt, commits, tools, result and its
 * evidence, diff, validation runs, trust scores, evaluations, and its tool calls page by page.
 */
export function AttemptDetail({ attemptId, level }: { attemptId: number; level: number }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const input = { attemptId, limit: TOOL_CALL_PAGE };
  const query = useInfiniteQuery({
    queryKey: trpc.attempt.get.infiniteQueryKey(input),
    // The procedure's strict input takes `cursor` but not the `direction` tRPC's infinite helper adds.
    queryFn: ({ pageParam, signal }) => client.attempt.get.query(pageParam === null ? input : { ...input, cursor: pageParam }, { signal }),
    initialPageParam: null as number | null,
    getNextPageParam: (page: Detail) => page.nextCursor,
  });

  if (query.isPending)
    return (
      <p className="text-sm text-zinc-500" aria-busy="true">
        Loading attempt {attemptId}…
      </p>
    );
  // A failed "load more" keeps the pages already shown; only a failed first load replaces them.
  if (!query.data) return <ErrorState title={`Could not load attempt ${attemptId}`} error={query.error} />;
  const first = query.data.pages[0]!;
  const calls = query.data.pages.flatMap((page) => page.toolCalls);
  const { attempt, result } = first;
  const sub = level + 1;

  return (
    <div className="mt-3 space-y-4 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-zinc-500">Started</dt>
        <dd>
          <Time at={attempt.timestamp} relative={false} />
        </dd>
        <dt className="text-zinc-500">Commits</dt>
        <dd className="font-mono text-xs break-all">
          {attempt.startCommitSha ?? "none"} → {result?.endCommitSha ?? "none"}
        </dd>
        <dt className="text-zinc-500">Tools given</dt>
        <dd>{first.tools.length === 0 ? "none recorded" : first.tools.map((t) => t.name).join(", ")}</dd>
      </dl>

      {attempt.prompt && (
        <div>
          <Heading level={sub} className="mb-1 text-sm font-semibold">
            Prompt
          </Heading>
          <LongText text={attempt.prompt} label={`Prompt of attempt ${attemptId}`} lines={6} mono={false} />
        </div>
      )}

      <div>
        <Heading level={sub} className="mb-1 text-sm font-semibold">
          Result
        </Heading>
        {result ? (
          <div className="space-y-2 text-sm">
            <p className="flex flex-wrap items-center gap-2">
              <StatusBadge status={result.status} /> {result.statusDetail && <span>{result.statusDetail}</span>}
            </p>
            <Evidence result={result} />
            {result.output && <LongText text={result.output} label={`Output of attempt ${attemptId}`} />}
          </div>
        ) : (
          <p className="text-sm text-zinc-500">Still running: no result recorded.</p>
        )}
      </div>

      {result?.diff && (
        <div>
          <Heading level={sub} className="mb-1 text-sm font-semibold">
            Diff
          </Heading>
          <LongText text={result.diff} label={`Diff of attempt ${attemptId}`} lines={20} chars={4000} />
        </div>
      )}

      <div>
        <Heading level={sub} className="mb-1 text-sm font-semibold">
          Validation runs ({first.validationRuns.length})
        </Heading>
        {first.validationRuns.length === 0 ? (
          <p className="text-sm text-zinc-500">None recorded.</p>
        ) : (
          <ol className="space-y-2">
            {first.validationRuns.map((run) => (
              <li key={run.id} className="text-sm">
                <p className="flex flex-wrap items-center gap-2">
                  <span>
                    Step {run.stepOrder}: <code className="font-mono text-xs break-all">{run.command}</code>
                  </span>
                  <span className={run.exitCode === 0 ? "text-emerald-700 dark:text-emerald-400" : "text-rose-700 dark:text-rose-400"}>
                    exit code {run.exitCode}
                  </span>
                </p>
                {run.output && <LongText text={run.output} label={`Output of validation step ${run.stepOrder}`} lines={8} />}
              </li>
            ))}
          </ol>
        )}
      </div>

      {first.trustScores.length > 0 && (
        <div>
          <Heading level={sub} className="mb-1 text-sm font-semibold">
            Trust scores
          </Heading>
          <ul className="space-y-1 text-sm">
            {first.trustScores.map((t) => (
              <li key={t.id}>
                <span className="font-medium tabular-nums">{formatValue(t.score)}</span> by {t.actor}, <Time at={t.at} />
                {t.notes && <span className="text-zinc-600 dark:text-zinc-400"> — {t.notes}</span>}
              </li>
            ))}
          </ul>
        </div>
      )}

      {first.evaluations.length > 0 && (
        <div>
          <Heading level={sub} className="mb-1 text-sm font-semibold">
            Goal-gate evaluations of this attempt ({first.evaluations.length})
          </Heading>
          <ol className="space-y-3">
            {first.evaluations.map((evaluation) => (
              <li key={evaluation.id}>
                <EvaluationView evaluation={evaluation} label={`Evaluation ${evaluation.id} of attempt ${attemptId}`} />
              </li>
            ))}
          </ol>
        </div>
      )}

      <div>
        <Heading level={sub} className="mb-1 text-sm font-semibold">
          Tool calls
        </Heading>
        {calls.length === 0 ? (
          <p className="text-sm text-zinc-500">None recorded.</p>
        ) : (
          <ol aria-label={`Tool calls of attempt ${attemptId}`} className="space-y-2">
            {calls.map((call) => (
              <li key={call.id} className="rounded border border-zinc-200 p-2 text-sm dark:border-zinc-800">
                <p className="mb-1 font-medium">
                  #{call.order} <span className="font-mono">{call.toolName}</span>
                </p>
                <div className="grid gap-2 md:grid-cols-2">
                  <div>
                    <p className="text-xs text-zinc-500">Input</p>
                    <LongText text={prettyJson(call.input) || "none"} label={`Input of tool call ${call.order}`} lines={8} />
                  </div>
                  <div>
                    <p className="text-xs text-zinc-500">Output</p>
                    <LongText text={prettyJson(call.output) || "none"} label={`Output of tool call ${call.order}`} lines={8} />
                  </div>
                </div>
              </li>
            ))}
          </ol>
        )}
        {query.hasNextPage && (
          <Button variant="secondary" className="mt-2" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : "Load more tool calls"}
          </Button>
        )}
        {query.isFetchNextPageError && <ErrorState title="Could not load more tool calls" error={query.error} />}
      </div>
    </div>
  );
}

/** What the attempt reported for the goal gate. */
function Evidence({ result }: { result: NonNullable<Detail["result"]> }) {
  const metrics = Object.entries(result.metrics ?? {});
  const markers = result.markers ?? [];
  const artifacts = result.artifacts ?? [];
  if (metrics.length === 0 && markers.length === 0 && artifacts.length === 0 && result.verifiedFindings === null) return null;
  return (
    <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]">
      {metrics.length > 0 && (
        <>
          <dt className="text-zinc-500">Metrics</dt>
          <dd className="font-mono text-xs break-all">{metrics.map(([name, value]) => `${name} = ${formatValue(value)}`).join(", ")}</dd>
        </>
      )}
      {markers.length > 0 && (
        <>
          <dt className="text-zinc-500">Markers</dt>
          <dd className="font-mono text-xs break-all">{markers.join(", ")}</dd>
        </>
      )}
      {artifacts.length > 0 && (
        <>
          <dt className="text-zinc-500">Artifacts</dt>
          <dd>
            <ul>
              {artifacts.map((artifact) => (
                <li key={artifact} className="font-mono text-xs">
                  <LinkOrText value={artifact} />
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {result.verifiedFindings !== null && (
        <>
          <dt className="text-zinc-500">Verified findings</dt>
          <dd>{result.verifiedFindings}</dd>
        </>
      )}
    </dl>
  );
}
