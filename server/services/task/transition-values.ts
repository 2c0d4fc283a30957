import type { taskTransitions } from "@/db/schema";
import type { Actor } from "@/server/domain/actors";
import type { MoveOutcome, TaskMove } from "@/server/domain/task-machine";

/**
 * The `task_transitions` row for one move of the machine. Verify and block keep the proofpack and
 * the claimant they judged, so the history still says who claimed what after a reset clears the task.
 */
export function moveTransitionValues(
  task: { id: number; sessionId: string; claimedBy: string | null },
  move: TaskMove,
  outcome: MoveOutcome,
  actor: Actor,
  at: Date,
): typeof taskTransitions.$inferInsert {
  const judged = move === "verify" || move === "block";
  return {
    taskId: task.id,
    sessionId: task.sessionId,
    move,
    fromStatus: outcome.from,
    toStatus: outcome.to,
    actor: actor.label,
    principalId: actor.principalId,
    role: actor.role,
    reason: outcome.reason,
    evidence: outcome.patch.evidence ?? null,
    proofpack: judged ? (outcome.patch.proofpack ?? null) : null,
    failures: outcome.patch.failures ?? null,
    verification: outcome.patch.verification ?? null,
    claimant: judged ? task.claimedBy : null,
    at,
  };
}
