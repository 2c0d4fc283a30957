"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { ReactNode } from "react";
import { EvidenceText } from "@/app/components/task-actions";
import { useTRPC } from "@/app/trpc/client";
import { Badge, StatusBadge } from "@/app/ui/badge";
import { LoadingBlock, QueryFallback } from "@/app/ui/query-fallback";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import type { AppRouter } from "@/server/api/root";
import { isExternallyBlocked } from "@/server/domain/criteria";
import { CriterionDecisions } from "./criterion-decisions";

type Criterion = inferRouterOutputs<AppRouter>["criteria"]["list"][number];
type CriterionUpdate = Criterion["history"][number];

/** What "done" means for the session: each criterion's claim, the verifier's finding beside it, and its history. */
export function CriteriaSection({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.criteria.list.queryOptions({ sessionId }));
  const criteria = query.data;
  if (criteria === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the success criteria">
        <LoadingBlock label="Loading success criteria…" />
      </QueryFallback>
    );
  }
  const required = criteria.filter((c) => c.requiredForCompletion);
  const met = required.filter((c) => c.effectiveStatus === "met" || isExternallyBlocked(c)).length;
  const discrepancies = criteria.filter((c) => c.discrepancy).length;

  return (
    <section aria-labelledby="criteria-heading" className="space-y-3">
      <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 id="criteria-heading" className="text-lg font-semibold">
          Success criteria
        </h2>
        {criteria.length > 0 && (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            <span className="tabular-nums">
              {met}/{required.length}
            </span>{" "}
            required met
            {discrepancies > 0 && (
              <>
                {" · "}
                <span className="font-medium text-rose-700 dark:text-rose-300">
                  {discrepancies} discrepanc{discrepancies === 1 ? "y" : "ies"}
                </span>
              </>
            )}
          </p>
        )}
      </div>
      {criteria.length === 0 ? (
        <EmptyState title="No success criteria saved for this session.">
          The PM saves them, e.g. <Code>{`proofgate save-success-criteria ${sessionId} '[{"criterion":"All tests passing"}]'`}</Code>
        </EmptyState>
      ) : (
        <ul className="space-y-3">
          {criteria.map((c) => (
            <li key={c.id}>
              <CriterionCard criterion={c} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CriterionCard({ criterion: c }: { criterion: Criterion }) {
  const external = isExternallyBlocked(c);
  const nameId = `criterion-${c.id}`;
  return (
    <article
      aria-labelledby={nameId}
      data-testid="criterion"
      data-discrepancy={c.discrepancy || undefined}
      className={`rounded-lg border bg-white p-3 text-sm dark:bg-zinc-900 ${c.discrepancy ? "border-rose-400 ring-1 ring-rose-300 dark:border-rose-700 dark:ring-rose-900" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={nameId} className="min-w-0 break-words font-medium">
          {c.criterion}
        </h3>
        <div className="flex flex-wrap gap-1">
          {external ? <Badge tone="warn">blocked (external)</Badge> : <StatusBadge status={c.effectiveStatus} />}
          <Badge tone={c.requiredForCompletion ? "accent" : "neutral"}>{c.requiredForCompletion ? "required" : "optional"}</Badge>
          {c.migrated && <Badge>migrated</Badge>}
        </div>
      </div>
      {c.discrepancy && (
        <p role="note" className="mt-2 rounded bg-rose-50 px-2 py-1 text-rose-900 dark:bg-rose-950 dark:text-rose-100">
          Discrepancy: the PM says <strong>{c.status}</strong>, the verifier found <strong>{c.verifierStatus}</strong>. The gate trusts the verifier.
        </p>
      )}
      {external && (
        <p className="mt-2 text-amber-900 dark:text-amber-200">
          Blocked by something outside the team&apos;s control (evidence names it); the gate counts it as satisfied.
        </p>
      )}
      <div className="mt-2 grid gap-3 sm:grid-cols-2">
        <Finding title="PM's claim" status={c.status} actual={c.actual} evidence={c.evidence} highlight={c.discrepancy} />
        {c.verifierStatus ? (
          <Finding
            title="Verifier's finding"
            status={c.verifierStatus}
            actual={c.verifierActual}
            evidence={c.verifierEvidence}
            highlight={c.discrepancy}
            by={c.verifierBy}
            at={c.verifierAt}
          />
        ) : (
          <div className="rounded border border-dashed border-zinc-300 p-2 text-zinc-500 dark:border-zinc-700">
            <p className="font-medium">Verifier&apos;s finding</p>
            <p>None recorded: the gate uses the PM&apos;s claim.</p>
          </div>
        )}
      </div>
      <CriterionDecisions criterion={c} />
      <CriterionHistory history={c.history} />
    </article>
  );
}

function Finding({
  title,
  status,
  actual,
  evidence,
  highlight,
  by,
  at,
}: {
  title: string;
  status: string;
  actual: string | null;
  evidence: string | null;
  highlight: boolean;
  by?: string | null;
  at?: Date | null;
}) {
  return (
    <div className={`rounded border p-2 ${highlight ? "border-rose-300 dark:border-rose-800" : "border-zinc-200 dark:border-zinc-800"}`}>
      <p className="flex flex-wrap items-center gap-1.5 font-medium">
        {title} <StatusBadge status={status} />
      </p>
      <dl className="mt-1 space-y-0.5">
        <Pair term="Actual">{actual ?? <span className="text-zinc-500">—</span>}</Pair>
        <Pair term="Evidence">{evidence ? <EvidenceText text={evidence} /> : <span className="text-zinc-500">—</span>}</Pair>
        {by && (
          <Pair term="By">
            {by}
            {at && (
              <>
                {" · "}
                <Time at={at} />
              </>
            )}
          </Pair>
        )}
      </dl>
    </div>
  );
}

function Pair({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex gap-1.5">
      <dt className="shrink-0 text-zinc-500">{term}</dt>
      <dd className="min-w-0 whitespace-pre-wrap break-words">{children}</dd>
    </div>
  );
}

const KIND_LABEL: Record<CriterionUpdate["kind"], string> = {
  create: "created",
  claim: "PM update",
  verify: "verifier finding",
  required: "required flag",
  import: "imported",
};

function CriterionHistory({ history }: { history: CriterionUpdate[] }) {
  if (history.length === 0) return null;
  return (
    <details className="mt-2">
      <summary className="cursor-pointer select-none text-zinc-600 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100">
        Change history ({history.length})
      </summary>
      <ol className="mt-1.5 space-y-1.5 border-l border-zinc-200 pl-2 dark:border-zinc-700">
        {history.map((u) => (
          <li key={u.id} data-testid="criterion-update">
            <p className="flex flex-wrap items-center gap-1">
              <Badge className="font-mono">{KIND_LABEL[u.kind]}</Badge>
              {u.kind === "required" ? (
                <span>{u.required ? "now required" : "now optional"}</span>
              ) : (
                <>
                  {u.fromStatus ? <StatusBadge status={u.fromStatus} /> : <span className="text-zinc-500">new</span>}
                  <span aria-hidden>→</span>
                  <span className="sr-only">to</span>
                  {u.toStatus ? <StatusBadge status={u.toStatus} /> : <span className="text-zinc-500">unchanged</span>}
                </>
              )}
            </p>
            <p className="text-zinc-600 dark:text-zinc-400">
              by <span className="font-medium text-zinc-900 dark:text-zinc-100">{u.actor}</span>
              {u.role && <> ({u.role})</>} · <Time at={u.at} />
            </p>
            {u.actual && <p className="break-words">Actual: {u.actual}</p>}
            {u.evidence && (
              <p className="break-words">
                Evidence: <EvidenceText text={u.evidence} />
              </p>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
