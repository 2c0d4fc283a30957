"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useMay } from "@/app/(dashboard)/viewer";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { Button } from "@/app/ui/button";
import { FormError } from "@/app/ui/field";
import { QueryFallback } from "@/app/ui/query-fallback";
import { Time } from "@/app/ui/time";
import type { AppRouter } from "@/server/api/root";
import { COMPLETION_HISTORY_LIMIT } from "./limits";

type CheckRow = inferRouterOutputs<AppRouter>["completion"]["list"][number];

/**
 * The gate's verdict on the session as it is now (`completion.preview`, nothing recorded) with
 * every reason, the last check that was recorded, and the button that records a new one.
 */
export function CompletionGate({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const canRun = useMay("completion.check");
  const preview = useQuery(trpc.completion.preview.queryOptions({ sessionId }));
  const history = useQuery(trpc.completion.list.queryOptions({ sessionId, limit: COMPLETION_HISTORY_LIMIT }));
  const run = useMutation(trpc.completion.check.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  const now = preview.data;
  const checks = history.data;
  if (now === undefined || checks === undefined) {
    return (
      <QueryFallback query={[preview, history]} errorTitle="Could not load the completion gate">
        <div className="h-24 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-900" />
      </QueryFallback>
    );
  }
  const latest = checks[0];

  return (
    <section aria-labelledby="gate-heading" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0 space-y-1">
          <h2 id="gate-heading" className="text-base font-semibold">
            Completion gate
          </h2>
          <div data-testid="gate-now">
            <p className="flex flex-wrap items-center gap-2 text-sm">
              <span>Right now the gate would</span> <Badge tone={now.accepted ? "good" : "bad"}>{now.accepted ? "accept" : "reject"}</Badge>{" "}
              <span className="tabular-nums">
                {now.metCount}/{now.totalCount} required criteria met
              </span>
              {now.discrepancies.length > 0 && (
                <Badge tone="bad">
                  {now.discrepancies.length} discrepanc{now.discrepancies.length === 1 ? "y" : "ies"}
                </Badge>
              )}
            </p>
            <Reasons check={now} />
          </div>
          <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="gate-latest">
            {latest ? (
              <>
                Last recorded check #{latest.id}: <Verdict accepted={latest.accepted} /> by {latest.actor} · <Time at={latest.at} />
              </>
            ) : (
              "No completion check recorded for this session yet."
            )}
          </p>
        </div>
        {canRun && (
          <Button onClick={() => run.mutate({ sessionId })} disabled={run.isPending}>
            {run.isPending ? "Checking…" : "Run completion check"}
          </Button>
        )}
      </div>
      <div className="mt-3 space-y-2 empty:hidden">
        <FormError message={run.error?.message} />
        {run.data && (
          <div role="status" data-testid="check-result" className="rounded-md border border-zinc-200 px-3 py-2 text-sm dark:border-zinc-700">
            <p className="flex flex-wrap items-center gap-2">
              Check #{run.data.id} recorded: <Verdict accepted={run.data.accepted} />{" "}
              <span className="tabular-nums">
                {run.data.metCount}/{run.data.totalCount} required criteria met
              </span>
            </p>
            <Reasons check={run.data} />
          </div>
        )}
      </div>
    </section>
  );
}

export function Verdict({ accepted }: { accepted: boolean }) {
  return <Badge tone={accepted ? "good" : "bad"}>{accepted ? "accepted" : "rejected"}</Badge>;
}

export function Reasons({ check }: { check: Pick<CheckRow, "accepted" | "reasons"> }) {
  if (check.reasons.length === 0)
    return (
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        {check.accepted ? "Every required criterion is met and every task is completed and verified." : "No reasons were recorded."}
      </p>
    );
  return (
    <ul aria-label="Reasons" className="mt-1 list-disc space-y-0.5 pl-5 text-sm">
      {check.reasons.map((reason, i) => (
        <li key={i} className="break-words">
          {reason}
        </li>
      ))}
    </ul>
  );
}
