import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { boundAll, driverValues, prepared } from "@/db/prepared";
import { taskTransitions, tasks } from "@/db/schema";
import { ConflictError } from "@/server/domain/errors";

/**
 * The statements a task move runs, prepared once per connection (db/prepared.ts says why): the
 * task by its key, the compare-and-set update (one statement per set of columns a move writes —
 * seven moves, so a handful), and the transition row.
 */

type TaskSet = Partial<typeof tasks.$inferInsert>;
type TransitionValues = typeof taskTransitions.$inferInsert;

/**
 * Each statement has a synchronous variant (`…Sync`) for SQLite, where a prepared statement answers
 * at once: a task move runs them in one synchronous stretch (services/context.ts, writeSync).
 */

export async function selectTask(db: Db, sessionId: string, key: string): Promise<typeof tasks.$inferSelect | undefined> {
  return await selectTaskStatement(db).get({ sessionId, key });
}

export function selectTaskSync(db: Db, sessionId: string, key: string): typeof tasks.$inferSelect | undefined {
  return selectTaskStatement(db).get({ sessionId, key });
}

function selectTaskStatement(db: Db) {
  return prepared(db, "task.select_by_key", () =>
    db
      .select()
      .from(tasks)
      .where(and(eq(tasks.sessionId, sql.placeholder("sessionId")), eq(tasks.key, sql.placeholder("key"))))
      .prepare(),
  );
}

type Versioned = { id: number; key: string; version: number };

/**
 * `UPDATE tasks SET … WHERE id = ? AND version = ? RETURNING *`: the updated row. If the version
 * moved on since `task` was read, someone else changed the task: a ConflictError, nothing written.
 */
export async function compareAndSetTask(db: Db, task: Versioned, set: TaskSet): Promise<typeof tasks.$inferSelect> {
  const { statement, params } = compareAndSetStatement(db, task, set);
  return updatedOrConflict(task, await statement.get(params));
}

export function compareAndSetTaskSync(db: Db, task: Versioned, set: TaskSet): typeof tasks.$inferSelect {
  const { statement, params } = compareAndSetStatement(db, task, set);
  return updatedOrConflict(task, statement.get(params));
}

function compareAndSetStatement(db: Db, task: Versioned, set: TaskSet) {
  const keys = Object.keys(set)
    .filter((key) => set[key as keyof TaskSet] !== undefined)
    .sort();
  const statement = prepared(db, `task.compare_and_set:${keys.join(",")}`, () =>
    db
      .update(tasks)
      .set(boundAll(keys))
      .where(and(eq(tasks.id, sql.placeholder("whereId")), eq(tasks.version, sql.placeholder("whereVersion"))))
      .returning()
      .prepare(),
  );
  return { statement, params: { ...driverValues(tasks, set, keys), whereId: task.id, whereVersion: task.version } };
}

function updatedOrConflict<T>(task: { key: string }, updated: T | undefined): T {
  if (!updated) throw new ConflictError("task.version_conflict", `task ${task.key} was changed by someone else: reload and retry`);
  return updated;
}

const TRANSITION_KEYS = [
  "taskId",
  "sessionId",
  "move",
  "fromStatus",
  "toStatus",
  "actor",
  "principalId",
  "role",
  "reason",
  "evidence",
  "proofpack",
  "failures",
  "verification",
  "claimant",
  "at",
] as const satisfies readonly (keyof TransitionValues)[];

export async function insertTransition(db: Db, values: TransitionValues): Promise<void> {
  await insertTransitionStatement(db).run(driverValues(taskTransitions, values, TRANSITION_KEYS));
}

export function insertTransitionSync(db: Db, values: TransitionValues): void {
  insertTransitionStatement(db).run(driverValues(taskTransitions, values, TRANSITION_KEYS));
}

function insertTransitionStatement(db: Db) {
  return prepared(db, "task.insert_transition", () => db.insert(taskTransitions).values(boundAll(TRANSITION_KEYS)).prepare());
}
