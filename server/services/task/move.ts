import { TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import { ConflictError } from "@/server/domain/errors";
import { applyMove } from "@/server/domain/task-machine";
import { type ServiceContext, nowOf, write } from "../context";
import { appendEventPrepared } from "../events/append";
import { type TaskRow, loadTask } from "./load";
import { compareAndSetTask, insertTransition } from "./statements";
import { moveTransitionValues } from "./transition-values";
import { MoveTaskInput } from "./schemas";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";

/**
 * Make one move of the task machine (claim, verify, block, complete, request/approve reset…). The
 * domain decides; the update is a compare-and-set on `version`, so of two concurrent moves on one
 * task exactly one wins and the other gets a CONFLICT instead of silently overwriting it. Every
 * statement is prepared once per connection (task/statements.ts): they run on `ctx.db`, the
 * connection the transaction is open on.
 */
export async function moveTask(ctx: ServiceContext, raw: MoveTaskInput): Promise<TaskRow> {
  return moveParsedTask(ctx, parseInput(MoveTaskInput, raw, "task.invalid_input"));
}

/**
 * `moveTask` for an input MoveTaskInput already parsed (the API's move procedures, whose input
 * schema it is): a move is the ledger's hottest write, and its schema need not run twice.
 */
export async function moveParsedTask(ctx: ServiceContext, unredacted: MoveTaskInput): Promise<TaskRow> {
  const input = redactInput(unredacted);
  return write(ctx, async () => {
    const task = await loadTask(ctx.db, input.sessionId, input.key);
    if (input.expectedVersion !== undefined && input.expectedVersion !== task.version) {
      throw new ConflictError(
        "task.version_conflict",
        `task ${input.key} changed since version ${input.expectedVersion} (now ${task.version}, ${task.status}): reload and retry`,
      );
    }
    const now = nowOf(ctx);
    const outcome = applyMove(task, input.move, ctx.actor, input, now);
    const { resetCount, ...patch } = outcome.patch;
    const updated = await compareAndSetTask(ctx.db, task, {
      ...patch,
      status: outcome.to,
      resetCount: resetCount === "increment" ? task.resetCount + 1 : task.resetCount,
      version: task.version + 1,
      updatedAt: now,
    });
    await insertTransition(ctx.db, moveTransitionValues(task, input.move, outcome, ctx.actor, now));
    await appendEventPrepared(ctx, {
      type: TASK_MOVE_EVENTS[input.move],
      sessionId: task.sessionId,
      entity: "task",
      entityId: task.id,
      data: { key: task.key, from: outcome.from, to: outcome.to, version: updated.version },
    });
    return updated;
  });
}
