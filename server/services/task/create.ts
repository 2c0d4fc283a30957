import { insertReturning } from "@/db/prepared";
import { tasks } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ConflictError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { CreateTaskInput } from "./schemas";
import { type TaskRow } from "./load";
import { insertTransition } from "./statements";
import { parseInput } from "../parse-input";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

/** Create a task (pending) in a session, with its `create` transition and event. */
export async function createTask(ctx: ServiceContext, unredacted: CreateTaskInput): Promise<TaskRow> {
  authorize(ctx.actor, "task.create");
  const input = redactInput(parseInput(CreateTaskInput, unredacted, "task.invalid_input"));
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const now = nowOf(ctx);
    const task = await insertReturning(
      ctx.db,
      "task.create",
      tasks,
      { ...input, status: "pending", createdAt: now, updatedAt: now },
      { onConflictDoNothing: true },
    );
    if (!task) throw new ConflictError("task.exists", `task ${input.key} already exists in session ${input.sessionId}`);
    await insertTransition(ctx.db, {
      taskId: task.id,
      sessionId: task.sessionId,
      move: "create",
      toStatus: "pending",
      actor: ctx.actor.label,
      principalId: ctx.actor.principalId,
      role: ctx.actor.role,
      at: now,
    });
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.taskCreated,
      sessionId: task.sessionId,
      entity: "task",
      entityId: task.id,
      data: { key: task.key, title: task.title },
    });
    return task;
  });
}
