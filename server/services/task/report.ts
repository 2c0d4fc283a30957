import type { Tx } from "@/db/client";
import { EVENT_TYPES, TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import { type TaskMove, type TaskPatch, applyMove, moveForEdge, observeReportedStatus, refuseReportedStatus } from "@/server/domain/task-machine";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { type TaskRow, loadTask } from "./load";
import { compareAndSetTask, insertTransition } from "./statements";
import { ReportTaskInput } from "./schemas";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

/** Moves a bare status report may stand for: they need nothing but who is acting. */
const REPORTABLE_MOVES: readonly TaskMove[] = ["start", "claim", "complete"];

/**
 * An orchestrator reports a task's details and, optionally, a status in its own words (BAZINGA's
 * `update-task-group`). In an `enforce` session a status must be a legal move that needs no
 * evidence (start, claim, complete), made by a role allowed to make it; anything else is refused
 * with the move to use instead. In an `observe` session the status is accepted and recorded as what
 * it is: a completion nobody verified is stored with `verification = 'none'` and flagged.
 */
export async function reportTask(ctx: ServiceContext, unredacted: ReportTaskInput): Promise<TaskRow> {
  authorize(ctx.actor, "task.report");
  const input = redactInput(parseInput(ReportTaskInput, unredacted, "task.invalid_input"));
  const { sessionId, key, status, sourceStatus, ...details } = input;
  return write(ctx, async (tx) => {
    const session = await loadSession(tx, sessionId);
    const task = await loadTask(ctx.db, sessionId, key);
    const now = nowOf(ctx);
    const metadata = details.metadata ? { metadata: { ...(task.metadata ?? {}), ...details.metadata } } : {};
    const base = { ...details, ...metadata, sourceStatus: sourceStatus ?? task.sourceStatus, version: task.version + 1, updatedAt: now };
    if (status === undefined || status === task.status) {
      const updated = await compareAndSetTask(ctx.db, task, base);
      const changed = Object.keys(details).filter((k) => details[k as keyof typeof details] !== undefined);
      await appendEvent(tx, ctx, {
        type: EVENT_TYPES.taskUpdated,
        sessionId,
        entity: "task",
        entityId: task.id,
        data: { key, fields: changed, sourceStatus: sourceStatus ?? null },
      });
      return updated;
    }

    if (session.enforcement === "enforce") {
      const move = moveForEdge(task.status, status);
      if (!move || !REPORTABLE_MOVES.includes(move)) throw refuseReportedStatus(task.status, status);
      const outcome = applyMove(task, move, ctx.actor, {}, now);
      const { resetCount: _ignored, ...patch } = outcome.patch;
      const updated = await compareAndSetTask(ctx.db, task, { ...base, ...patch, status: outcome.to });
      await record(tx, ctx, task, { move, to: outcome.to, verification: null, patch, type: TASK_MOVE_EVENTS[move], now });
      return updated;
    }

    const observed = observeReportedStatus(task, status);
    const completion = status === "completed" ? { completedBy: ctx.actor.label, completedAt: now } : {};
    const updated = await compareAndSetTask(ctx.db, task, { ...base, ...completion, status: observed.to, verification: observed.verification });
    await record(tx, ctx, task, {
      move: "report",
      to: observed.to,
      verification: observed.verification,
      patch: {},
      // One `unverified_completion` per task: at the completion, not also at an unverified `verified` on the way.
      type: observed.unverified && observed.to === "completed" ? EVENT_TYPES.unverifiedCompletion : EVENT_TYPES.taskReported,
      now,
    });
    return updated;
  });
}

async function record(
  tx: Tx,
  ctx: ServiceContext,
  task: TaskRow,
  change: { move: string; to: TaskRow["status"]; verification: TaskRow["verification"]; patch: Omit<TaskPatch, "resetCount">; type: string; now: Date },
): Promise<void> {
  await insertTransition(ctx.db, {
    taskId: task.id,
    sessionId: task.sessionId,
    move: change.move,
    fromStatus: task.status,
    toStatus: change.to,
    actor: ctx.actor.label,
    principalId: ctx.actor.principalId,
    role: ctx.actor.role,
    evidence: change.patch.evidence ?? null,
    verification: change.verification,
    at: change.now,
  });
  await appendEvent(tx, ctx, {
    type: change.type,
    sessionId: task.sessionId,
    entity: "task",
    entityId: task.id,
    data: { key: task.key, from: task.status, to: change.to, verification: change.verification },
  });
}
