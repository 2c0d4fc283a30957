import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { branches, validationSteps } from "@/db/schema";
import type { ValidationStepRow } from "./add-validation-step";
import { type EvaluationRow, goalEvaluations } from "./evaluations";
import { type GoalNode, findNode, loadGoalForest } from "./goal-view";
import { type BranchRow, loadGoal } from "./load";
import { parseInput } from "./parse-input";
import { GoalRef } from "./schemas";

export interface GoalDetail extends GoalNode {
  validationSteps: ValidationStepRow[];
  /** Every evaluation of the goal, oldest first. */
  evaluations: EvaluationRow[];
  /** Branches made for this goal. */
  branches: BranchRow[];
}

/** One goal with everything under it: contract, steps, attempts, evaluations, branches and its sub-goal tree. */
export function getGoal(db: DbOrTx, input: GoalRef): GoalDetail {
  const data = parseInput(GoalRef, input, "goal.invalid_input");
  const goal = loadGoal(db, data.goalId);
  const node = findNode(loadGoalForest(db, goal.sessionId), goal.id)!;
  return {
    ...node,
    validationSteps: db.select().from(validationSteps).where(eq(validationSteps.goalId, goal.id)).orderBy(asc(validationSteps.order)).all(),
    evaluations: goalEvaluations(db, goal.id),
    branches: db.select().from(branches).where(eq(branches.createdByGoalId, goal.id)).orderBy(asc(branches.id)).all(),
  };
}
