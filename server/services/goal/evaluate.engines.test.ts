import { describe, expect, it } from "vitest";
import { recordTrustScore } from "../attempt/record-trust-score";
import { startAttempt } from "../attempt/start";
import { evaluateGoalGate } from "./evaluate";
import { evaluateSessionCompletion } from "../completion/check";
import { createSession } from "../session/create";
import { createGoal } from "./create";
import { setGoalContract } from "./set-contract";
import {
  ADMIN,
  type Fixture,
  AGENT,
  LEAD,
  ORCHESTRATOR,
  VERIFIER,
  expectNothingWritten,
  expectRefused,
  finishedAttempt,
  lastEvent,
  rootGoal,
  setup,
} from "@/test/support/goal-fixtures";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const ACCURACY = (target: number, maxGoalAttempts = 3) => ({
  goalText: `Build model with >= ${target * 100}% accuracy`,
  acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target }],
  maxGoalAttempts,
});

async function withContract(engine: Engine, target = 0.8, maxGoalAttempts = 3) {
  const f = await setup(await freshLedger(engine));
  const goal = await rootGoal(f);
  const contract = await setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: ACCURACY(target, maxGoalAttempts) });
  return { f, goal, contractId: contract.row.id };
}

describeEngines("goal evaluate", (engine) => {
  describe("evaluateGoalGate", () => {
    it("judges the attempt's stored evidence, METRIC lines of its output included, and appends the evaluation", async () => {
      const { f, goal, contractId } = await withContract(engine);
      const attempt = await finishedAttempt(f, goal, { evidence: { output: "training…\n[METRIC:cv_accuracy_mean] 0.85\ndone" }, score: 90 });
      const evaluation = await evaluateGoalGate(f.as(LEAD), { attemptId: attempt });
      expect(evaluation).toMatchObject({
        goalId: goal,
        contractId,
        attemptId: attempt,
        attemptNumber: 1,
        maxAttempts: 3,
        trustScore: 90,
        trustPassed: true,
        goalStatus: "MET",
        metCount: 1,
        totalCount: 1,
        verdict: "SUCCESS",
        actor: "lead@example.com",
      });
      expect(evaluation.criteriaResults).toEqual([expect.objectContaining({ criterionId: "AC1", status: "MET", actual: 0.85 })]);
      expect(evaluation.summary).toBe("Goal criteria met: 1/1 criteria passed");
      expect(await lastEvent(f.db)).toMatchObject({
        type: "goal.gate_evaluated",
        entity: "goal",
        entityId: String(goal),
        data: { verdict: "SUCCESS", attemptNumber: 1, attemptId: attempt },
      });
    });

    it("uses the latest trust score, so a re-scored attempt can be evaluated again", async () => {
      const { f, goal } = await withContract(engine);
      const attempt = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.9 } }, score: 70 });
      expect(await evaluateGoalGate(f.as(VERIFIER), { attemptId: attempt })).toMatchObject({ trustScore: 70, verdict: "PARTIAL" });
      await recordTrustScore(f.as({ ...VERIFIER, label: "verifier_2", principalId: "token:verifier_2" }), { attemptId: attempt, score: 88 });
      expect(await evaluateGoalGate(f.as(VERIFIER), { attemptId: attempt })).toMatchObject({ trustScore: 88, verdict: "SUCCESS", attemptNumber: 1 });
    });

    it("numbers attempts among the goal's implementation attempts only", async () => {
      const { f, goal } = await withContract(engine, 0.8, 5);
      await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.5 } }, score: 90 });
      await finishedAttempt(f, goal, { attemptType: "breakdown" });
      const second = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.6 } }, score: 90 });
      expect((await evaluateGoalGate(f.as(VERIFIER), { attemptId: second })).attemptNumber).toBe(2);
    });

    it("passes earlier evaluations as history, so distinct failed approaches make the goal unachievable", async () => {
      const { f, goal } = await withContract(engine, 0.95, 5);
      const first = await finishedAttempt(f, goal, { model: "logistic-regression", evidence: { metrics: { cv_accuracy_mean: 0.7 } }, score: 90 });
      expect((await evaluateGoalGate(f.as(VERIFIER), { attemptId: first })).pivot).toMatchObject({ shouldPivot: true, unachievable: false, attemptsLeft: 4 });
      const second = await finishedAttempt(f, goal, { model: "gradient-boosting", evidence: { metrics: { cv_accuracy_mean: 0.8 } }, score: 90 });
      const pivot = (await evaluateGoalGate(f.as(VERIFIER), { attemptId: second })).pivot as { unachievable: boolean; suggestions: string[] };
      expect(pivot.unachievable).toBe(true);
      expect(pivot.suggestions.join("\n")).toContain("logistic-regression, gradient-boosting");
    });

    it("refuses an unfinished attempt, an unscored one and a breakdown, writing nothing", async () => {
      const { f, goal } = await withContract(engine);
      const { attempt: running } = await startAttempt(f.as(ORCHESTRATOR), { goalId: goal });
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: running.id }), "goal_gate.attempt_unfinished");
      const unscored = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.9 } } });
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: unscored }), "goal_gate.trust_score_required");
      const breakdown = await finishedAttempt(f, goal, { attemptType: "breakdown", score: 90 });
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: breakdown }), "goal_gate.breakdown_attempt");
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: 999 }), "attempt.not_found");
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: -1 }), "goal_gate.invalid_input");
    });

    it("keeps evaluations in attempt order: an earlier attempt is not judged after a later one", async () => {
      const { f, goal } = await withContract(engine, 0.8, 5);
      const first = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.9 } }, score: 70 });
      const second = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.5 } }, score: 90 });
      await evaluateGoalGate(f.as(VERIFIER), { attemptId: second });
      await recordTrustScore(f.as(LEAD), { attemptId: first, score: 95 });
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: first }), "goal_gate.attempt_superseded");
    });

    it("closes a goal that succeeded: a later evaluation could otherwise undo the success", async () => {
      const { f, goal } = await withContract(engine);
      const good = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.9 } }, score: 90 });
      await evaluateGoalGate(f.as(VERIFIER), { attemptId: good });
      await expectNothingWritten(f.db, async () => evaluateGoalGate(f.as(VERIFIER), { attemptId: good }), "goal_gate.goal_succeeded");
      // Nor does a succeeded goal take another implementation attempt that a later evaluation could judge.
      await expectNothingWritten(f.db, async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal }), "attempt.goal_succeeded");
    });

    it("is refused to an agent and a viewer", async () => {
      const { f, goal } = await withContract(engine);
      const attempt = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.9 } }, score: 90 });
      await expectRefused(async () => evaluateGoalGate(f.as(AGENT), { attemptId: attempt }), "goal_gate.evaluate_role");
      await expectRefused(async () => evaluateGoalGate(f.as({ ...LEAD, role: "viewer" }), { attemptId: attempt }), "goal_gate.evaluate_role");
    });
  });

  describe("the completion gate reads each contract goal's latest evaluation", () => {
    const goalReasons = async (f: Fixture, sessionId = f.sessionId) =>
      (await evaluateSessionCompletion(f.db, sessionId)).reasons.filter((r) => r.startsWith("Goal "));

    it("never evaluated, then PARTIAL, then SUCCESS after a re-score; goals without a contract and other sessions' goals are not gated", async () => {
      const { f, goal } = await withContract(engine);
      await rootGoal(f, "No contract here");
      const text = 'Goal "Migrate the build to Bazel" has not passed both gates';
      expect(await goalReasons(f)).toEqual([`${text} (latest verdict: never evaluated)`]);

      const attempt = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.9 } }, score: 70 });
      await evaluateGoalGate(f.as(VERIFIER), { attemptId: attempt });
      expect(await goalReasons(f)).toEqual([`${text} (latest verdict: PARTIAL)`]);

      await recordTrustScore(f.as({ ...VERIFIER, label: "verifier_2", principalId: "token:verifier_2" }), { attemptId: attempt, score: 88 });
      await evaluateGoalGate(f.as(VERIFIER), { attemptId: attempt });
      expect(await goalReasons(f)).toEqual([]);

      await createSession(f.as(ADMIN), { id: "s2" });
      const other = (await createGoal(f.as(ORCHESTRATOR), { sessionId: "s2", goalText: "Elsewhere" })).id;
      await setGoalContract(f.as(ORCHESTRATOR), { goalId: other, contract: ACCURACY(0.8) });
      expect(await goalReasons(f)).toEqual([]);
      expect(await goalReasons(f, "s2")).toEqual(['Goal "Elsewhere" has not passed both gates (latest verdict: never evaluated)']);
    });
  });
});
