"use client";

import { useId, useState } from "react";
import { Badge, StatusBadge } from "@/app/ui/badge";
import { Time, formatDuration } from "@/app/ui/time";
import { AttemptDetail } from "./attempt-detail";
import { EvaluationView } from "./evaluation-view";
import { describeCriterion, formatValue } from "./gate-data";
import { GoalExtras } from "./goal-extras";
import { Heading } from "./heading";
import type { AttemptSummary, GoalNode } from "./types";

/** One goal: its contract, its latest gate evaluation, its attempts in order, and its sub-goals below it. */
export function GoalCard({ node, level }: { node: GoalNode; level: number }) {
  const { goal, contract } = node;
  const titleId = `goal-${goal.id}-title`;
  const sub = level + 1;
  return (
    <article aria-labelledby={titleId} className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
      <header className="mb-3">
        <Heading level={level} id={titleId} className="text-base font-semibold break-words">
          Goal {goal.id}: {goal.goalText}
        </Heading>
        <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-600 dark:text-zinc-400">
          {node.verdict ? <StatusBadge status={node.verdict} /> : <Badge>not evaluated</Badge>}
          <span>
            {node.attemptsUsed} implementation attempt{node.attemptsUsed === 1 ? "" : "s"}
            {node.maxAttempts !== null && ` of ${node.maxAttempts} allowed`}
          </span>
          {goal.source === "breakdown" && (
            <Badge tone="accent">from breakdown{goal.createdByAttemptId !== null && ` (attempt ${goal.createdByAttemptId})`}</Badge>
          )}
          <span>
            created <Time at={goal.timestamp} />
          </span>
        </div>
      </header>

      <div className="space-y-4">
        <section aria-label={`Contract of goal ${goal.id}`}>
          <Heading level={sub} className="mb-1 text-sm font-semibold">
            Contract
          </Heading>
          {contract ? (
            <div className="space-y-2 text-sm">
              <dl className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-[max-content_1fr]">
                <dt className="text-zinc-500">Goal</dt>
                <dd className="break-words">{contract.row.goalText}</dd>
                <dt className="text-zinc-500">Type</dt>
                <dd>{contract.row.goalType ?? "none"}</dd>
                <dt className="text-zinc-500">Max attempts</dt>
                <dd>{contract.row.maxGoalAttempts}</dd>
              </dl>
              <div className="overflow-x-auto">
                <table className="w-full text-left text-sm">
                  <caption className="sr-only">Acceptance criteria of goal {goal.id}</caption>
                  <thead className="text-xs text-zinc-500 uppercase">
                    <tr>
                      <th scope="col" className="py-1 pr-3">
                        Criterion
                      </th>
                      <th scope="col" className="py-1 pr-3">
                        Kind
                      </th>
                      <th scope="col" className="py-1 pr-3">
                        Requires
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {contract.criteria.map((c) => (
                      <tr key={c.id} className="border-t border-zinc-100 align-top dark:border-zinc-800">
                        <th scope="row" className="py-1 pr-3 font-mono text-xs font-normal">
                          {c.key}
                        </th>
                        <td className="py-1 pr-3 text-xs">{c.kind.replaceAll("_", " ")}</td>
                        <td className="py-1 pr-3 break-words">
                          <span className="font-mono text-xs">{describeCriterion(c)}</span>
                          {c.description && <span className="block text-zinc-600 dark:text-zinc-400">{c.description}</span>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </div>
          ) : (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">No contract: the goal gate is skipped for this goal.</p>
          )}
        </section>

        {node.latestEvaluation && (
          <section aria-label={`Latest goal-gate evaluation of goal ${goal.id}`}>
            <Heading level={sub} className="mb-1 text-sm font-semibold">
              Latest goal-gate evaluation
            </Heading>
            <EvaluationView evaluation={node.latestEvaluation} label={`Latest evaluation of goal ${goal.id}`} />
          </section>
        )}

        <section aria-label={`Attempts at goal ${goal.id}`}>
          <Heading level={sub} className="mb-1 text-sm font-semibold">
            Attempts ({node.attempts.length})
          </Heading>
          {node.attempts.length === 0 ? (
            <p className="text-sm text-zinc-600 dark:text-zinc-400">
              No attempts yet. Agents start one with <code className="font-mono text-xs">proofgate start-attempt {goal.id}</code>.
            </p>
          ) : (
            <ol className="space-y-2">
              {node.attempts.map((attempt) => (
                <AttemptItem key={attempt.id} attempt={attempt} level={sub + 1} />
              ))}
            </ol>
          )}
        </section>

        <GoalExtras goalId={goal.id} level={sub} />

        {node.children.length > 0 && (
          <section aria-label={`Sub-goals of goal ${goal.id}`}>
            <Heading level={sub} className="mb-2 text-sm font-semibold">
              Sub-goals ({node.children.length})
            </Heading>
            <ol className="space-y-3 border-l-2 border-zinc-200 pl-3 dark:border-zinc-700">
              {node.children.map((child) => (
                <li key={child.goal.id}>
                  <GoalCard node={child} level={Math.min(6, sub + 1)} />
                </li>
              ))}
            </ol>
          </section>
        )}
      </div>
    </article>
  );
}

/** One attempt's summary line; its details load when it is opened. */
function AttemptItem({ attempt, level }: { attempt: AttemptSummary; level: number }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  return (
    <li aria-label={`Attempt ${attempt.id}: ${attempt.label}`} className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={() => setOpen(!open)}
          className="inline-flex min-h-9 items-center gap-1 rounded font-medium hover:underline focus-visible:outline-2 focus-visible:outline-sky-600"
        >
          <span aria-hidden="true" className={`inline-block transition-transform ${open ? "rotate-90" : ""}`}>
            ▸
          </span>
          {attempt.label}
        </button>
        <span>
          <span className="text-zinc-500">model</span> <span className="font-mono text-xs">{attempt.model ?? "none"}</span>
        </span>
        <span>
          <span className="text-zinc-500">type</span> {attempt.attemptType}
        </span>
        <span className="inline-flex items-center gap-1">
          <span className="text-zinc-500">result</span> {attempt.status ? <StatusBadge status={attempt.status} /> : <Badge tone="info">running</Badge>}
        </span>
        <span>
          <span className="text-zinc-500">duration</span> {attempt.durationMs === null ? "running" : formatDuration(attempt.durationMs)}
        </span>
        <span>
          {attempt.toolCallCount} tool call{attempt.toolCallCount === 1 ? "" : "s"}
        </span>
        {attempt.latestTrustScore !== null && (
          <span>
            <span className="text-zinc-500">trust</span> {formatValue(attempt.latestTrustScore)}
          </span>
        )}
        {attempt.latestEvaluation && (
          <span className="inline-flex items-center gap-1">
            <span className="text-zinc-500">verdict</span> <StatusBadge status={attempt.latestEvaluation.verdict} />
          </span>
        )}
      </div>
      <div id={panelId} hidden={!open}>
        {open && <AttemptDetail attemptId={attempt.id} level={level} />}
      </div>
    </li>
  );
}
