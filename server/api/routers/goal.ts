import { addValidationStep } from "@/server/services/goal/add-validation-step";
import { createGoal } from "@/server/services/goal/create";
import { createBranch } from "@/server/services/goal/create-branch";
import { createWorktree } from "@/server/services/goal/create-worktree";
import { evaluateGoalGate } from "@/server/services/goal/evaluate";
import { listEvaluations } from "@/server/services/goal/evaluations";
import { getGoal } from "@/server/services/goal/get";
import { recordMerge } from "@/server/services/goal/record-merge";
import * as S from "@/server/services/goal/schemas";
import { setGoalContract } from "@/server/services/goal/set-contract";
import { getGoalTree } from "@/server/services/goal/tree";
import { authedProcedure, router } from "../trpc";

/** Goals and sub-goals, their contracts and validation steps, git state, and the goal gate. */
export const goalRouter = router({
  tree: authedProcedure.input(S.GetGoalTreeInput).query(async ({ ctx, input }) => getGoalTree(ctx.db, input)),
  get: authedProcedure.input(S.GoalRef).query(async ({ ctx, input }) => getGoal(ctx.db, input)),
  evaluations: authedProcedure.input(S.GoalRef).query(async ({ ctx, input }) => listEvaluations(ctx.db, input)),
  create: authedProcedure.input(S.CreateGoalInput).mutation(async ({ ctx, input }) => createGoal(ctx.service, input)),
  addValidationStep: authedProcedure.input(S.AddValidationStepInput).mutation(async ({ ctx, input }) => addValidationStep(ctx.service, input)),
  setContract: authedProcedure.input(S.SetGoalContractInput).mutation(async ({ ctx, input }) => setGoalContract(ctx.service, input)),
  createBranch: authedProcedure.input(S.CreateBranchInput).mutation(async ({ ctx, input }) => createBranch(ctx.service, input)),
  createWorktree: authedProcedure.input(S.CreateWorktreeInput).mutation(async ({ ctx, input }) => createWorktree(ctx.service, input)),
  recordMerge: authedProcedure.input(S.RecordMergeInput).mutation(async ({ ctx, input }) => recordMerge(ctx.service, input)),
  evaluate: authedProcedure.input(S.EvaluateGoalGateInput).mutation(async ({ ctx, input }) => evaluateGoalGate(ctx.service, input)),
});
