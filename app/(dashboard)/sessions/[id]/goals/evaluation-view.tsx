"use client";

import { StatusBadge } from "@/app/ui/badge";
import { Time } from "@/app/ui/time";
import { attemptOf, formatValue, readCriteriaResults, readPivot, statusLabel } from "./gate-data";
import type { Evaluation } from "./types";

/** One goal-gate evaluation: the verdict, each criterion MET / NOT MET with actual vs target, the trust gate and the pivot advice. */
export function EvaluationView({ evaluation, label }: { evaluation: Evaluation; label: string }) {
  const criteria = readCriteriaResults(evaluation.criteriaResults);
  const pivot = readPivot(evaluation.pivot);
  return (
    <div role="group" aria-label={label} className="space-y-2 text-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="inline-flex items-center gap-1">
          <span className="text-zinc-500">Verdict</span> <StatusBadge status={evaluation.verdict} />
        </span>
        <span data-testid="evaluation-attempt">{attemptOf(evaluation.attemptNumber, evaluation.maxAttempts)}</span>
        <span>
          <span className="text-zinc-500">Goal gate</span> {statusLabel(evaluation.goalStatus)} ({evaluation.metCount}/{evaluation.totalCount} met)
        </span>
        <span data-testid="evaluation-trust">
          <span className="text-zinc-500">Trust score</span> {evaluation.trustScore === null ? "none" : formatValue(evaluation.trustScore)} (
          {evaluation.trustPassed ? "trust gate passed" : "trust gate failed"})
        </span>
        <span className="text-xs text-zinc-500">
          by {evaluation.actor}, <Time at={evaluation.at} />
        </span>
      </div>
      {criteria.length > 0 && (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Criteria of this evaluation</caption>
            <thead className="text-xs text-zinc-500 uppercase">
              <tr>
                <th scope="col" className="py-1 pr-3">
                  Criterion
                </th>
                <th scope="col" className="py-1 pr-3">
                  Status
                </th>
                <th scope="col" className="py-1 pr-3">
                  Actual
                </th>
                <th scope="col" className="py-1 pr-3">
                  Target
                </th>
              </tr>
            </thead>
            <tbody>
              {criteria.map((c, i) => (
                <tr key={`${c.criterionId}-${i}`} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                  <th scope="row" className="py-1 pr-3 font-normal">
                    <span className="font-mono text-xs">{c.criterionId}</span>{" "}
                    <span className="text-zinc-600 wrap-anywhere dark:text-zinc-400">{c.subject}</span>
                  </th>
                  <td className="py-1 pr-3">
                    <StatusBadge status={c.status} />
                  </td>
                  <td className="py-1 pr-3 font-mono text-xs wrap-anywhere" title={c.message}>
                    {c.actual}
                  </td>
                  <td className="py-1 pr-3 font-mono text-xs wrap-anywhere">{c.target}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p className="text-zinc-700 dark:text-zinc-300">{evaluation.reason}</p>
      {pivot && (pivot.shouldPivot || pivot.unachievable || pivot.suggestions.length > 0) && (
        <div className="rounded-md border border-amber-200 bg-amber-50 p-2 dark:border-amber-900 dark:bg-amber-950/40">
          <p className="font-medium">
            Pivot advice:{" "}
            {pivot.unachievable
              ? "distinct approaches keep missing the goal — it may be unachievable as stated"
              : pivot.shouldPivot
                ? "try another approach"
                : "no pivot needed"}
            {pivot.attemptsLeft !== null && ` (${pivot.attemptsLeft} attempt${pivot.attemptsLeft === 1 ? "" : "s"} left)`}
          </p>
          {pivot.suggestions.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {pivot.suggestions.map((s, i) => (
                <li key={i}>{s}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
