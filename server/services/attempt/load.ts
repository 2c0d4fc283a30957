import { queryGet } from "@/db/query";
import { and, count, eq, lte } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { attemptResults, attempts, goals } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import type { GoalRow } from "../goal/load";

export type AttemptRow = typeof attempts.$inferSelect;
export type AttemptResultRow = typeof attemptResults.$inferSelect;

export interface AttemptWithGoal {
  attempt: AttemptRow;
  goal: GoalRow;
}

/** An attempt with the goal it works on (the goal carries the session). */
export async function loadAttempt(db: DbOrTx, id: number): Promise<AttemptWithGoal> {
  const row = await queryGet(
    db.select({ attempt: attempts, goal: goals }).from(attempts).innerJoin(goals, eq(goals.id, attempts.goalId)).where(eq(attempts.id, id)),
  );
  if (!row) throw new NotFoundError("attempt", id);
  return row;
}

export async function findResult(db: DbOrTx, attemptId: number): Promise<AttemptResultRow | undefined> {
  return await queryGet(db.select().from(attemptResults).where(eq(attemptResults.attemptId, attemptId)));
}

/**
 * The attempt's 1-based position among its goal's implementation attempts (what "attempt n of max"
 * counts); null for a breakdown attempt, which splits the goal rather than trying to meet it.
 */
export async function attemptNumber(db: DbOrTx, attempt: AttemptRow): Promise<number | null> {
  if (attempt.attemptType !== "implementation") return null;
  const row = await queryGet(
    db
      .select({ n: count() })
      .from(attempts)
      .where(and(eq(attempts.goalId, attempt.goalId), eq(attempts.attemptType, "implementation"), lte(attempts.id, attempt.id))),
  );
  return row?.n ?? 1;
}
