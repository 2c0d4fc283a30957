import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { taskTransitions, tasks } from "@/db/schema";
import { loadSession } from "../session/load";
import { type TaskRow, loadTask } from "./load";
import type { ListTasksInput, TaskRef } from "./schemas";

export type TransitionRow = typeof taskTransitions.$inferSelect;

/** A session's tasks (optionally one status), in creation order. */
export function listTasks(db: DbOrTx, input: ListTasksInput): TaskRow[] {
  loadSession(db, input.sessionId);
  return db
    .select()
    .from(tasks)
    .where(and(eq(tasks.sessionId, input.sessionId), input.status ? eq(tasks.status, input.status) : undefined))
    .orderBy(asc(tasks.id))
    .all();
}

/** One task with its full transition history (previous attempts included: a reset never erases them). */
export function getTask(db: DbOrTx, input: TaskRef): TaskRow & { transitions: TransitionRow[] } {
  const task = loadTask(db, input.sessionId, input.key);
  const transitions = db.select().from(taskTransitions).where(eq(taskTransitions.taskId, task.id)).orderBy(asc(taskTransitions.id)).all();
  return { ...task, transitions };
}
