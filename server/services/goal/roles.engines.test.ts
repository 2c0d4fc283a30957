/**
 * The role table of roles.ts, verb by verb: every role either succeeds or is refused with the
 * verb's rule, and a refusal writes nothing.
 */
import { mapInOrder } from "../in-order";
import { describe, expect, it } from "vitest";
import { ROLES, type Role } from "@/server/domain/actors";
import { RoleForbiddenError } from "@/server/domain/errors";
import { finishAttempt } from "../attempt/finish";
import { recordToolCalls } from "../attempt/record-tool-calls";
import { recordTrustScore } from "../attempt/record-trust-score";
import { recordValidationRun } from "../attempt/record-validation-run";
import { startAttempt } from "../attempt/start";
import type { ServiceContext } from "../context";
import { addValidationStep } from "./add-validation-step";
import { createBranch } from "./create-branch";
import { createGoal } from "./create";
import { createWorktree } from "./create-worktree";
import { evaluateGoalGate } from "./evaluate";
import { recordMerge } from "./record-merge";
import { setGoalContract } from "./set-contract";
import { type Fixture, ORCHESTRATOR, actorWithRole, expectNothingWritten, finishedAttempt, rootGoal, setup } from "@/test/support/goal-fixtures";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const PLAN: Role[] = ["agent", "orchestrator", "lead", "admin"];
const RECORD: Role[] = ["agent", "orchestrator", "admin"];
const SHA = "a".repeat(40);

type Verb = (ctx: ServiceContext) => Promise<unknown>;
type Prepare = (f: Fixture) => Verb | Promise<Verb>;

const VERBS: [name: string, rule: string, allowed: Role[], prepare: Prepare][] = [
  ["createGoal", "goal.create_role", PLAN, (f) => async (ctx) => createGoal(ctx, { sessionId: f.sessionId, goalText: "g" })],
  [
    "addValidationStep",
    "validation_step.create_role",
    PLAN,
    async (f) => {
      const goalId = await rootGoal(f);
      return async (ctx) => addValidationStep(ctx, { goalId, command: "npm test" });
    },
  ],
  [
    "setGoalContract",
    "goal_contract.set_role",
    PLAN,
    async (f) => {
      const goalId = await rootGoal(f);
      return async (ctx) =>
        setGoalContract(ctx, { goalId, contract: { goalText: "g", acceptanceCriteria: [{ id: "AC1", kind: "finding_count", minCount: 1 }] } });
    },
  ],
  ["createBranch", "branch.create_role", PLAN, (f) => async (ctx) => createBranch(ctx, { sessionId: f.sessionId, name: "b" })],
  [
    "createWorktree",
    "worktree.create_role",
    RECORD,
    async (f) => {
      const branchId = (await createBranch(f.as(ORCHESTRATOR), { sessionId: f.sessionId, name: "b" })).id;
      return async (ctx) => createWorktree(ctx, { branchId, path: "/tmp/wt" });
    },
  ],
  [
    "recordMerge",
    "merge.record_role",
    RECORD,
    async (f) => {
      const [from, to] = await mapInOrder(["a", "b"], async (name) => (await createBranch(f.as(ORCHESTRATOR), { sessionId: f.sessionId, name })).id);
      return async (ctx) => recordMerge(ctx, { fromBranchId: from!, toBranchId: to!, fromCommitSha: SHA, toCommitSha: SHA, resultCommitSha: SHA });
    },
  ],
  [
    "startAttempt",
    "attempt.start_role",
    RECORD,
    async (f) => {
      const goalId = await rootGoal(f);
      return async (ctx) => startAttempt(ctx, { goalId });
    },
  ],
  [
    "recordToolCalls",
    "attempt.tool_calls_role",
    RECORD,
    async (f) => {
      const attemptId = (await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f) })).attempt.id;
      return async (ctx) => recordToolCalls(ctx, { attemptId, calls: [{ tool: "read_file" }] });
    },
  ],
  [
    "finishAttempt",
    "attempt.finish_role",
    RECORD,
    async (f) => {
      const attemptId = (await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f) })).attempt.id;
      return async (ctx) => finishAttempt(ctx, { attemptId, status: "completed" });
    },
  ],
  [
    "recordValidationRun",
    "validation_run.record_role",
    RECORD,
    async (f) => {
      const goalId = await rootGoal(f);
      const validationStepId = (await addValidationStep(f.as(ORCHESTRATOR), { goalId, command: "npm test" })).id;
      const attemptId = await finishedAttempt(f, goalId);
      return async (ctx) => recordValidationRun(ctx, { attemptId, validationStepId, exitCode: 0 });
    },
  ],
  [
    "recordTrustScore",
    "trust_score.role",
    ["verifier", "lead", "admin"],
    async (f) => {
      const attemptId = await finishedAttempt(f, await rootGoal(f));
      return async (ctx) => recordTrustScore(ctx, { attemptId, score: 85 });
    },
  ],
  [
    "evaluateGoalGate",
    "goal_gate.evaluate_role",
    ["verifier", "orchestrator", "lead", "admin"],
    async (f) => {
      const attemptId = await finishedAttempt(f, await rootGoal(f), { score: 90 });
      return async (ctx) => evaluateGoalGate(ctx, { attemptId });
    },
  ],
];

describeEngines("goal roles", (engine) => {
  describe.each(VERBS)("%s", (_name, rule, allowed, prepare) => {
    it.each(ROLES.map((role) => [role, allowed.includes(role)] as const))("%s allowed: %s", async (role, isAllowed) => {
      const f = await setup(await freshLedger(engine));
      const run = await prepare(f);
      const ctx = f.as(actorWithRole(role));
      if (isAllowed) {
        expect(await run(ctx)).toBeTruthy();
      } else {
        expect(await expectNothingWritten(f.db, () => run(ctx), rule)).toBeInstanceOf(RoleForbiddenError);
      }
    });
  });
});
