import { TASK_MOVE_EVENTS } from "@/server/domain/event-types";
import { ConflictError } from "@/server/domain/errors";
import { applyMove } from "@/server/domain/task-machine";
import { engineOf } from "@/db/client";
import { type EventInput, type ServiceContext, appendEventRowSync, nowOf, write, writeSync } from "../context";
import { appendEventPrepared } from "../events/append";
import { type TaskRow, loadTask, loadTaskSync } from "./load";
import { compareAndSetTask, compareAndSetTaskSync, insertTransition, insertTransitionSync } from "./statements";
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
  // On SQLite every statement of a move answers at once: the whole transaction runs in one synchronous
  // stretch, with no turn of the event loop for another request's transaction to queue behind.
  if (engineOf(ctx.db) === "sqlite") return writeSync(ctx, () => moveNow(ctx, input));
  return write(ctx, () => moveAwaiting(ctx, input));
}

function moveNow(ctx: ServiceContext, input: MoveTaskInput): TaskRow {
  const task = loadTaskSync(ctx.db, input.sessionId, input.key);
  const move = decideMove(ctx, input, task);
  const updated = compareAndSetTaskSync(ctx.db, task, move.set);
  insertTransitionSync(ctx.db, move.transition);
  appendEventRowSync(ctx, move.event);
  return updated;
}

async function moveAwaiting(ctx: ServiceContext, input: MoveTaskInput): Promise<TaskRow> {
  const task = await loadTask(ctx.db, input.sessionId, input.key);
  const move = decideMove(ctx, input, task);
  const updated = await compareAndSetTask(ctx.db, task, move.set);
  await insertTransition(ctx.db, move.transition);
  await appendEventPrepared(ctx, move.event);
  return updated;
}

/**
 * What a move writes, as the domain decides it from the task as loaded: the compare-and-set's
 * columns, the transition row and the event. Throws the refusal (a stale expected version, a move
 * the machine forbids).
 */
function decideMove(ctx: ServiceContext, input: MoveTaskInput, task: TaskRow) {
  if (input.expectedVersion !== undefined && input.expectedVersion !== task.version) {
    throw new ConflictError(
      "task.version_conflict",
      `task ${input.key} changed since version ${input.expectedVersion} (now ${task.version}, ${task.status}): reload and retry`,
    );
  }
  const now = nowOf(ctx);
  const outcome = applyMove(task, input.move, ctx.actor, input, now);
  const { resetCount, ...patch } = outcome.patch;
  const version = task.version + 1;
  const event: EventInput = {
    type: TASK_MOVE_EVENTS[input.move],
    sessionId: task.sessionId,
    entity: "task",
    entityId: task.id,
    data: { key: task.key, from: outcome.from, to: outcome.to, version },
  };
  return {
    set: {
      ...patch,
      status: outcome.to,
      resetCount: resetCount === "increment" ? task.resetCount + 1 : task.resetCount,
      version,
      updatedAt: now,
    },
    transition: moveTransitionValues(task, input.move, outcome, ctx.actor, now),
    event,
  };
}
