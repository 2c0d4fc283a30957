import { queryAll } from "@/db/query";
import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { attempts, goalGateEvaluations } from "@/db/schema";
import type { CriterionResult } from "@/server/domain/goal-gate";
import type { AttemptHistoryEntry } from "@/server/domain/two-gate";
import { loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { GoalRef } from "./schemas";

export type EvaluationRow = typeof goalGateEvaluations.$inferSelect;

/** Every two-gate evaluation of a goal, oldest first. */
export async function listEvaluations(db: DbOrTx, input: GoalRef): Promise<EvaluationRow[]> {
  const data = parseInput(GoalRef, input, "goal.invalid_input");
  await loadGoal(db, data.goalId);
  return goalEvaluations(db, data.goalId);
}

export async function goalEvaluations(db: DbOrTx, goalId: number): Promise<EvaluationRow[]> {
  return await queryAll(db.select().from(goalGateEvaluations).where(eq(goalGateEvaluations.goalId, goalId)).orderBy(asc(goalGateEvaluations.id)));
}

/**
 * Earlier evaluations as the pivot protocol's history: the latest one per attempt, its approach
 * being the attempt's model (as the demo generator records it), so the protocol can tell when
 * distinct approaches keep missing the goal.
 */
export async function evaluationHistory(db: DbOrTx, goalId: number, evaluations: readonly EvaluationRow[]): Promise<AttemptHistoryEntry[]> {
  const models = new Map(
    (await queryAll(db.select({ id: attempts.id, model: attempts.model }).from(attempts).where(eq(attempts.goalId, goalId)))).map((a) => [a.id, a.model]),
  );
  const latest = new Map<number, EvaluationRow>();
  for (const row of evaluations) latest.set(row.attemptNumber, row);
  return [...latest.values()].map((row) => ({
    attemptNumber: row.attemptNumber,
    approach: (row.attemptId === null ? null : models.get(row.attemptId)) ?? "",
    verdict: row.verdict,
    goal: {
      overallStatus: row.goalStatus,
      passed: row.goalStatus === "MET" || row.goalStatus === "NO_CONTRACT",
      criteriaResults: row.criteriaResults as CriterionResult[],
      metCount: row.metCount,
      totalCount: row.totalCount,
      blockers: [],
      summary: "",
    },
  }));
}
