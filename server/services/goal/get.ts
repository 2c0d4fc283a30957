import { asc, eq, inArray, or } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
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
export function getGoal(db: DbOrTx, input: GoalRef): GoalDetail {
  const data = parseInput(GoalRef, input, "goal.invalid_input");
  const goal = loadGoal(db, data.goalId);
  const node = findNode(loadGoalForest(db, goal.sessionId), goal.id)!;
  const goalBranches = db.select().from(branches).where(eq(branches.createdByGoalId, goal.id)).orderBy(asc(branches.id)).all();
  return {
    ...node,
    validationSteps: db.select().from(validationSteps).where(eq(validationSteps.goalId, goal.id)).orderBy(asc(validationSteps.order)).all(),
    evaluations: goalEvaluations(db, goal.id),
    branches: goalBranches,
    merges: branchMerges(
      db,
      goalBranches.map((b) => b.id),
    ),
  };
}

function branchMerges(db: DbOrTx, branchIds: number[]): MergeView[] {
  if (branchIds.length === 0) return [];
  const from = alias(branches, "from_branch");
  const to = alias(branches, "to_branch");
  return db
    .select({
      id: merges.id,
      timestamp: merges.timestamp,
      fromBranch: from.name,
      fromCommitSha: merges.fromCommitSha,
      toBranch: to.name,
      toCommitSha: merges.toCommitSha,
      resultCommitSha: merges.resultCommitSha,
    })
    .from(merges)
    .innerJoin(from, eq(from.id, merges.fromBranchId))
    .innerJoin(to, eq(to.id, merges.toBranchId))
    .where(or(inArray(merges.fromBranchId, branchIds), inArray(merges.toBranchId, branchIds)))
    .orderBy(asc(merges.id))
    .all();
}
