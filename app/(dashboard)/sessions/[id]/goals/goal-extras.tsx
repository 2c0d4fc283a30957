"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useTRPC } from "@/app/trpc/client";
import { StatusBadge } from "@/app/ui/badge";
import { ErrorState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { attemptOf, formatValue } from "./gate-data";
import { Heading } from "./heading";

/** A goal's validation steps, branches, merges and full evaluation history, loaded when opened. */
export function GoalExtras({ goalId, level }: { goalId: number; level: number }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  return (
    <section aria-label={`Validation steps, branches, merges and evaluation history of goal ${goalId}`}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen(!open)}
        className="inline-flex min-h-9 items-center gap-1 rounded text-sm font-semibold hover:underline focus-visible:outline-2 focus-visible:outline-sky-600"
      >
        <span aria-hidden="true" className={`inline-block transition-transform ${open ? "rotate-90" : ""}`}>
          ▸
        </span>
        Validation steps, branches, merges and evaluation history
      </button>
      <div id={panelId} hidden={!open}>
        {open && <GoalExtrasPanel goalId={goalId} level={level + 1} />}
      </div>
    </section>
  );
}

function GoalExtrasPanel({ goalId, level }: { goalId: number; level: number }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.goal.get.queryOptions({ goalId }));
  if (query.isPending)
    return (
      <p className="text-sm text-zinc-500" aria-busy="true">
        Loading goal {goalId}…
      </p>
    );
  if (query.isError) return <ErrorState title={`Could not load goal ${goalId}`} error={query.error} />;
  const { validationSteps, branches, merges, evaluations } = query.data;
  return (
    <div className="mt-2 space-y-3 text-sm">
      <div>
        <Heading level={level} className="mb-1 font-semibold">
          Validation steps ({validationSteps.length})
        </Heading>
        {validationSteps.length === 0 ? (
          <p className="text-zinc-500">
            None: add one with <code className="font-mono text-xs">proofgate add-validation-step {goalId} &apos;npm test&apos;</code>.
          </p>
        ) : (
          <ol className="list-decimal space-y-1 pl-5">
            {validationSteps.map((step) => (
              <li key={step.id}>
                <code className="font-mono text-xs break-all">{step.command}</code> <span className="text-xs text-zinc-500">({step.source})</span>
              </li>
            ))}
          </ol>
        )}
      </div>
      <div>
        <Heading level={level} className="mb-1 font-semibold">
          Branches ({branches.length})
        </Heading>
        {branches.length === 0 ? (
          <p className="text-zinc-500">None recorded.</p>
        ) : (
          <ul className="space-y-1">
            {branches.map((branch) => (
              <li key={branch.id}>
                <span className="font-mono text-xs">{branch.name}</span>
                {branch.parentCommitSha && <span className="font-mono text-xs text-zinc-500"> from {branch.parentCommitSha.slice(0, 12)}</span>}
                {branch.reason && <span className="text-zinc-500"> ({branch.reason})</span>}, <Time at={branch.timestamp} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <Heading level={level} className="mb-1 font-semibold">
          Merges ({merges.length})
        </Heading>
        {merges.length === 0 ? (
          <p className="text-zinc-500">None recorded.</p>
        ) : (
          <ul className="space-y-1">
            {merges.map((merge) => (
              <li key={merge.id}>
                <span className="font-mono text-xs">{merge.fromBranch}</span>
                <span className="font-mono text-xs text-zinc-500"> @{merge.fromCommitSha.slice(0, 12)}</span> into{" "}
                <span className="font-mono text-xs">{merge.toBranch}</span>
                <span className="font-mono text-xs text-zinc-500"> @{merge.toCommitSha.slice(0, 12)}</span> →{" "}
                <span className="font-mono text-xs" title={merge.resultCommitSha}>
                  {merge.resultCommitSha.slice(0, 12)}
                </span>
                , <Time at={merge.timestamp} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <div>
        <Heading level={level} className="mb-1 font-semibold">
          Evaluation history ({evaluations.length})
        </Heading>
        {evaluations.length === 0 ? (
          <p className="text-zinc-500">Never evaluated.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-left">
              <thead className="text-xs text-zinc-500 uppercase">
                <tr>
                  <th scope="col" className="py-1 pr-3">
                    Attempt
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Verdict
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Criteria met
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    Trust
                  </th>
                  <th scope="col" className="py-1 pr-3">
                    When
                  </th>
                </tr>
              </thead>
              <tbody>
                {evaluations.map((e) => (
                  <tr key={e.id} className="border-t border-zinc-100 dark:border-zinc-800">
                    <td className="py-1 pr-3">{attemptOf(e.attemptNumber, e.maxAttempts)}</td>
                    <td className="py-1 pr-3">
                      <StatusBadge status={e.verdict} />
                    </td>
                    <td className="py-1 pr-3 tabular-nums">
                      {e.metCount}/{e.totalCount}
                    </td>
                    <td className="py-1 pr-3 tabular-nums">{e.trustScore === null ? "none" : formatValue(e.trustScore)}</td>
                    <td className="py-1 pr-3">
                      <Time at={e.at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </div>
  );
}
