import { queryAll } from "@/db/query";
import { asc, eq, inArray, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { branches, merges, validationSteps } from "@/db/schema";
import type { ValidationStepRow } from "./add-validation-step";
import { type EvaluationRow, goalEvaluations } from "./evaluations";
import { type GoalNode, findNode, loadGoalForest } from "./goal-view";
import { type BranchRow, loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { GoalRef } from "./schemas";

export interface GoalDetail extends GoalNode {
  validationSteps: ValidationStepRow[];
  /** Every evaluation of the goal, oldest first. */
  evaluations: EvaluationRow[];
  /** Branches made for this goal. */
  branches: BranchRow[];
  /** Merges from or into the goal's branches, oldest first, with both branches' names. */
  merges: MergeView[];
}

export interface MergeView {
  id: number;
  timestamp: Date;
  fromBranch: string;
  fromCommitSha: string;
  toBranch: string;
  toCommitSha: string;
  resultCommitSha: string;
}

/** One goal with everything under it: contract, steps, attempts, evaluations, branches and its sub-goal tree. */
export async function getGoal(db: DbOrTx, input: GoalRef): Promise<GoalDetail> {
  const data = parseInput(GoalRef, input, "goal.invalid_input");
  const goal = await loadGoal(db, data.goalId);
  const node = findNode(await loadGoalForest(db, goal.sessionId), goal.id)!;
  const goalBranches = await queryAll(db.select().from(branches).where(eq(branches.createdByGoalId, goal.id)).orderBy(asc(branches.id)));
  return {
    ...node,
    validationSteps: await queryAll(db.select().from(validationSteps).where(eq(validationSteps.goalId, goal.id)).orderBy(asc(validationSteps.order))),
    evaluations: await goalEvaluations(db, goal.id),
    branches: goalBranches,
    merges: await branchMerges(
      db,
      goalBranches.map((b) => b.id),
    ),
  };
}

async function branchMerges(db: DbOrTx, branchIds: number[]): Promise<MergeView[]> {
  if (branchIds.length === 0) return [];
  // A branch's name by a scalar subquery, not a join of `branches` aliased twice: on PostgreSQL,
  // Drizzle's pg dialect renders a join of an aliased SQLite table as the bare alias (no such table).
  const nameOf = (branchId: typeof merges.fromBranchId | typeof merges.toBranchId) =>
    sql<string>`(select b.name from ${branches} b where b.id = ${merges}.${sql.identifier(branchId.name)})`;
  return await queryAll(
    db
      .select({
        id: merges.id,
        timestamp: merges.timestamp,
        fromBranch: nameOf(merges.fromBranchId),
        fromCommitSha: merges.fromCommitSha,
        toBranch: nameOf(merges.toBranchId),
        toCommitSha: merges.toCommitSha,
        resultCommitSha: merges.resultCommitSha,
      })
      .from(merges)
      .where(or(inArray(merges.fromBranchId, branchIds), inArray(merges.toBranchId, branchIds)))
      .orderBy(asc(merges.id)),
  );
}
