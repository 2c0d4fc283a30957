"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { Reasons, Verdict } from "./completion-gate";
import { COMPLETION_HISTORY_LIMIT } from "./limits";

const SOURCE_LABEL = { gate: "completion gate", pm_bazinga: "PM's BAZINGA claim", validator_verdict: "validator's verdict" } as const;

/** Every completion check of the session, newest first: accepted or rejected, and why. */
export function CompletionChecks({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.completion.list.queryOptions({ sessionId, limit: COMPLETION_HISTORY_LIMIT }));
  const checks = query.data;
  if (checks === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the completion checks">
        <LoadingBlock label="Loading completion checks…" />
      </QueryFallback>
    );
  }
  return (
    <section aria-labelledby="checks-heading" className="space-y-3">
      <h2 id="checks-heading" className="text-lg font-semibold">
        Completion checks <span className="text-sm font-normal text-zinc-500 tabular-nums">({checks.length})</span>
      </h2>
      {checks.length === 0 ? (
        <EmptyState title="No completion checks yet.">
          Run one above, or from the command line: <Code>proofgate check-completion {sessionId}</Code>
        </EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
          <table className="w-full min-w-[40rem] text-left text-sm">
            <caption className="sr-only">Completion checks, newest first</caption>
            <thead className="border-b border-zinc-200 text-xs uppercase text-zinc-500 dark:border-zinc-800">
              <tr>
                <th scope="col" className="px-3 py-2">
                  Check
                </th>
                <th scope="col" className="px-3 py-2">
                  Result
                </th>
                <th scope="col" className="px-3 py-2">
                  Met / total
                </th>
                <th scope="col" className="px-3 py-2">
                  Reasons
                </th>
                <th scope="col" className="px-3 py-2">
                  Who
                </th>
                <th scope="col" className="px-3 py-2">
                  When
                </th>
              </tr>
            </thead>
            <tbody>
              {checks.map((check) => (
                <tr key={check.id} data-testid="completion-check" className="border-b border-zinc-100 align-top last:border-0 dark:border-zinc-800">
                  <td className="px-3 py-2 font-mono text-xs">#{check.id}</td>
                  <td className="px-3 py-2">
                    <Verdict accepted={check.accepted} />
                    {check.source !== "gate" && <p className="mt-1 text-xs text-zinc-500">{SOURCE_LABEL[check.source]}</p>}
                    {check.claimedVerdict && (
                      <p className="mt-1 text-xs">
                        claimed: <Badge>{check.claimedVerdict}</Badge>
                      </p>
                    )}
                  </td>
                  <td className="px-3 py-2 tabular-nums">
                    {check.metCount}/{check.totalCount}
                  </td>
                  <td className="px-3 py-2">
                    <Reasons check={check} />
                  </td>
                  <td className="px-3 py-2">
                    {check.actor}
                    {check.role && <span className="text-zinc-500"> ({check.role})</span>}
                  </td>
                  <td className="px-3 py-2 text-xs">
                    <Time at={check.at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {checks.length === COMPLETION_HISTORY_LIMIT && (
            <p className="px-3 py-2 text-xs text-zinc-500">Showing the newest {COMPLETION_HISTORY_LIMIT} checks.</p>
          )}
        </div>
      )}
    </section>
  );
}
