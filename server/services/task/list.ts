import { and, asc, eq } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db/client";
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
export function getTask(db: Db, input: TaskRef): TaskRow & { transitions: TransitionRow[] } {
  const task = loadTask(db, input.sessionId, input.key);
  const transitions = db.select().from(taskTransitions).where(eq(taskTransitions.taskId, task.id)).orderBy(asc(taskTransitions.id)).all();
  return { ...task, transitions };
}

export type BoardTask = TaskRow & { transitions: TransitionRow[] };

/**
 * A session's whole board in one call: every task (creation order) with its claimant, verifier,
 * evidence, proofpack, failures and reset fields, and each task's full transition history —
 * previous attempts included. Two queries whatever the number of tasks (the transitions come in
 * one read of the session's history, not one per task), in one read snapshot so a move committed
 * in between cannot leave a task and its history disagreeing.
 */
export function getTaskBoard(db: Db, input: { sessionId: string }): { sessionId: string; tasks: BoardTask[] } {
  return db.transaction((tx) => {
    loadSession(tx, input.sessionId);
    const rows = tx.select().from(tasks).where(eq(tasks.sessionId, input.sessionId)).orderBy(asc(tasks.id)).all();
    const history = tx.select().from(taskTransitions).where(eq(taskTransitions.sessionId, input.sessionId)).orderBy(asc(taskTransitions.id)).all();
    const byTask = new Map<number, TransitionRow[]>(rows.map((task) => [task.id, []]));
    for (const transition of history) byTask.get(transition.taskId)?.push(transition);
    return { sessionId: input.sessionId, tasks: rows.map((task) => ({ ...task, transitions: byTask.get(task.id)! })) };
  });
}
