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

export async function selectTask(db: Db, sessionId: string, key: string): Promise<typeof tasks.$inferSelect | undefined> {
  const query = prepared(db, "task.select_by_key", () =>
    db
      .select()
      .from(tasks)
      .where(and(eq(tasks.sessionId, sql.placeholder("sessionId")), eq(tasks.key, sql.placeholder("key"))))
      .prepare(),
  );
  return await query.get({ sessionId, key });
}

/**
 * `UPDATE tasks SET … WHERE id = ? AND version = ? RETURNING *`: the updated row. If the version
 * moved on since `task` was read, someone else changed the task: a ConflictError, nothing written.
 */
export async function compareAndSetTask(db: Db, task: { id: number; key: string; version: number }, set: TaskSet): Promise<typeof tasks.$inferSelect> {
  const keys = Object.keys(set)
    .filter((key) => set[key as keyof TaskSet] !== undefined)
    .sort();
  const query = prepared(db, `task.compare_and_set:${keys.join(",")}`, () =>
    db
      .update(tasks)
      .set(boundAll(keys))
      .where(and(eq(tasks.id, sql.placeholder("whereId")), eq(tasks.version, sql.placeholder("whereVersion"))))
      .returning()
      .prepare(),
  );
  const updated = await query.get({ ...driverValues(tasks, set, keys), whereId: task.id, whereVersion: task.version });
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
  const query = prepared(db, "task.insert_transition", () => db.insert(taskTransitions).values(boundAll(TRANSITION_KEYS)).prepare());
  await query.run(driverValues(taskTransitions, values, TRANSITION_KEYS));
}
