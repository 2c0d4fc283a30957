import { queryAll } from "@/db/query";
import { and, asc, eq, sql } from "drizzle-orm";
import { type Db, type DbOrTx, readTransaction } from "@/db/client";
import { prepared } from "@/db/prepared";
import { taskTransitions, tasks } from "@/db/schema";
import { loadSession } from "../session/load";
import { type TaskRow, loadTask } from "./load";
import { parseInput } from "../parse-input";
import { ListTasksInput, TaskBoardInput, TaskRef } from "./schemas";

export type TransitionRow = typeof taskTransitions.$inferSelect;

/** A session's tasks (optionally one status), in creation order. */
export async function listTasks(db: DbOrTx, raw: ListTasksInput): Promise<TaskRow[]> {
  const input = parseInput(ListTasksInput, raw, "task.invalid_input");
  await loadSession(db, input.sessionId);
  return await queryAll(
    db
      .select()
      .from(tasks)
      .where(and(eq(tasks.sessionId, input.sessionId), input.status ? eq(tasks.status, input.status) : undefined))
      .orderBy(asc(tasks.id)),
  );
}

/** One task with its full transition history (previous attempts included: a reset never erases them). */
export async function getTask(db: Db, raw: TaskRef): Promise<TaskRow & { transitions: TransitionRow[] }> {
  const input = parseInput(TaskRef, raw, "task.invalid_input");
  const task = await loadTask(db, input.sessionId, input.key);
  const transitions = await queryAll(db.select().from(taskTransitions).where(eq(taskTransitions.taskId, task.id)).orderBy(asc(taskTransitions.id)));
  return { ...task, transitions };
}

export type BoardTask = TaskRow & { transitions: TransitionRow[] };

/**
 * A session's whole board in one call: every task (creation order) with its claimant, verifier,
 * evidence, proofpack, failures and reset fields, and each task's full transition history —
 * previous attempts included. Two queries whatever the number of tasks (the transitions come in
 * one read of the session's history, not one per task), in one read snapshot so a move committed
 * in between cannot leave a task and its history disagreeing. Both are prepared once per
 * connection (db/prepared.ts): the session page asks for the board on every view.
 */
export async function getTaskBoard(db: Db, raw: TaskBoardInput): Promise<{ sessionId: string; tasks: BoardTask[] }> {
  const input = parseInput(TaskBoardInput, raw, "task.invalid_input");
  const query = prepared(db, "task.board", () => {
    const sessionId = sql.placeholder("sessionId");
    return {
      tasks: db.select().from(tasks).where(eq(tasks.sessionId, sessionId)).orderBy(asc(tasks.id)).prepare(),
      history: db.select().from(taskTransitions).where(eq(taskTransitions.sessionId, sessionId)).orderBy(asc(taskTransitions.id)).prepare(),
    };
  });
  return readTransaction(db, async (tx) => {
    await loadSession(tx, input.sessionId);
    const rows = await query.tasks.all(input);
    const history = await query.history.all(input);
    const byTask = new Map<number, TransitionRow[]>(rows.map((task) => [task.id, []]));
    for (const transition of history) byTask.get(transition.taskId)?.push(transition);
    return { sessionId: input.sessionId, tasks: rows.map((task) => ({ ...task, transitions: byTask.get(task.id)! })) };
  });
}
