"use client";

import type { ReactNode } from "react";
import { EvidenceList, FailureList, type HumanMove, ProofpackSummary, ProofpackView, TaskActionButtons } from "@/app/components/task-actions";
import { Badge } from "@/app/ui/badge";
import { Time } from "@/app/ui/time";
import { taskAnchor } from "../../activity/event-link";
import { TaskHistory } from "./task-history";
import { type TaskItem, movable } from "./task-types";

/** One task: who claimed it, who judged it and with what proof, what failed, and what may be done next. */
export function TaskCard({ task, onOpen }: { task: TaskItem; onOpen: (move: HumanMove) => void }) {
  const nameId = `task-${task.id}-name`;
  return (
    <article
      // The audit log links a task's events here (activity/event-link.ts).
      id={taskAnchor(task.key)}
      aria-labelledby={nameId}
      data-testid={`task-${task.key}`}
      data-status={task.status}
      className={`rounded-md border bg-white p-2.5 text-xs shadow-sm dark:bg-zinc-950 ${task.verification === "none" ? "border-rose-300 dark:border-rose-800" : "border-zinc-200 dark:border-zinc-800"}`}
    >
      <h4 id={nameId} className="break-words text-sm font-medium">
        <span className="block font-mono text-xs font-normal text-zinc-500">{task.key}</span>
        {task.title}
      </h4>
      <div className="mt-1 flex flex-wrap gap-1">
        {task.verification === "none" && (
          <Badge tone="bad" className="uppercase">
            unverified
          </Badge>
        )}
        {task.resetRequested && <Badge tone="warn">reset requested</Badge>}
        {task.resetCount > 0 && <Badge>attempt {task.resetCount + 1}</Badge>}
        {task.sourceStatus && task.sourceStatus !== task.status && <Badge>reported {task.sourceStatus}</Badge>}
      </div>
      {task.verification === "none" && (
        <p className="mt-1 text-rose-800 dark:text-rose-300">Reached {task.status} without a verify move: nobody checked this work.</p>
      )}

      <dl className="mt-2 space-y-1">
        {task.claimedBy ? (
          <Who term="Claimant" label={task.claimedBy} principal={task.claimedByPrincipal} at={task.claimedAt} />
        ) : (
          task.assignee && <Who term="Assignee" label={task.assignee} />
        )}
        {task.verifiedBy && <Who term="Verifier" label={task.verifiedBy} principal={task.verifiedByPrincipal} at={task.verifiedAt} />}
        {task.blockedBy && <Who term="Blocked by" label={task.blockedBy} principal={task.blockedByPrincipal} at={task.blockedAt} />}
        {task.completedBy && <Who term="Completed by" label={task.completedBy} at={task.completedAt} />}
      </dl>

      <div className="mt-2 space-y-2 empty:hidden">
        <ProofpackSummary proofpack={task.proofpack} />
        <FailureList failures={task.failures} />
        {task.resetRequested && (
          <Box>
            <p className="font-medium">
              Reset requested{task.resetRequestedBy && ` by ${task.resetRequestedBy}`}
              {task.resetRequestedAt && (
                <>
                  {" "}
                  · <Time at={task.resetRequestedAt} />
                </>
              )}
            </p>
            {task.resetReason && <p className="whitespace-pre-wrap break-words">{task.resetReason}</p>}
          </Box>
        )}
      </div>

      <TaskActionButtons task={movable(task)} onOpen={onOpen} className="mt-2" />
      <TaskHistory transitions={task.transitions}>
        <EvidenceList evidence={task.evidence} />
        <ProofpackView proofpack={task.proofpack} />
      </TaskHistory>
    </article>
  );
}

function Who({ term, label, principal, at }: { term: string; label: string; principal?: string | null; at?: Date | null }) {
  return (
    <div className="flex flex-wrap gap-x-1">
      <dt className="text-zinc-500">{term}</dt>
      <dd className="min-w-0 break-words">
        <span className="font-medium">{label}</span>
        {principal && <span className="ml-1 font-mono text-[0.9em] text-zinc-500">({principal})</span>}
        {at && (
          <span className="text-zinc-500">
            {" "}
            · <Time at={at} />
          </span>
        )}
      </dd>
    </div>
  );
}

function Box({ children }: { children: ReactNode }) {
  return (
    <div className="rounded border border-amber-300 bg-amber-50 px-2 py-1 text-amber-950 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-100">
      {children}
    </div>
  );
}
