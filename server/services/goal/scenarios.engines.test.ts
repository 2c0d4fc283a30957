/**
 * 002's test scenarios and the attempt limit, end to end through the services: contract → attempt
 * → result with evidence → trust score → evaluation → verdict.
 */
import { describe, expect, it } from "vitest";
import { startAttempt } from "../attempt/start";
import { evaluateGoalGate } from "./evaluate";
import { listEvaluations } from "./evaluations";
import { setGoalContract } from "./set-contract";
import { type Fixture, ORCHESTRATOR, VERIFIER, expectNothingWritten, finishedAttempt, rootGoal, setup } from "@/test/support/goal-fixtures";
import type { AttemptOptions } from "@/test/support/goal-fixtures";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

async function judge(f: Fixture, goal: number, options: AttemptOptions) {
  return evaluateGoalGate(f.as(VERIFIER), { attemptId: await finishedAttempt(f, goal, options) });
}

async function goalWith(engine: Engine, contract: unknown): Promise<{ f: Fixture; goal: number }> {
  const f = await setup(await freshLedger(engine));
  const goal = await rootGoal(f);
  if (contract) await setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract });
  return { f, goal };
}

const accuracy = (target: number, maxGoalAttempts?: number) => ({
  goalText: `Build model with >= ${Math.round(target * 100)}% accuracy`,
  acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target }],
  ...(maxGoalAttempts ? { maxGoalAttempts } : {}),
});

describeEngines("goal scenarios", (engine) => {
  describe("002 scenarios through the services", () => {
    it("A: goal met, trust high → SUCCESS", async () => {
      const { f, goal } = await goalWith(engine, accuracy(0.8));
      const evaluation = await judge(f, goal, { evidence: { output: "[METRIC:cv_accuracy_mean] 0.85" }, score: 90 });
      expect(evaluation).toMatchObject({ verdict: "SUCCESS", goalStatus: "MET", trustPassed: true, metCount: 1, totalCount: 1 });
    });

    it("B: goal not met with perfect evidence, trust high → PARTIAL, downgraded with a pivot", async () => {
      const { f, goal } = await goalWith(engine, accuracy(0.9));
      const evaluation = await judge(f, goal, { status: "success", evidence: { metrics: { cv_accuracy_mean: 0.75 } }, score: 85 });
      expect(evaluation).toMatchObject({ verdict: "PARTIAL", goalStatus: "NOT_MET", trustPassed: true });
      expect(evaluation.summary).toBe("Goal criteria not met: 0/1 criteria passed");
      expect(evaluation.reason).toContain("Goal criteria not met: 0/1 criteria passed");
      expect(evaluation.pivot).toMatchObject({ shouldPivot: true, attemptNumber: 1, maxAttempts: 3 });
    });

    it("C: no goal contract, trust 82 → SUCCESS (goal gate skipped); below 80 → PARTIAL", async () => {
      const { f, goal } = await goalWith(engine, null);
      const low = await judge(f, goal, { score: 79 });
      expect(low).toMatchObject({ verdict: "PARTIAL", goalStatus: "NO_CONTRACT", contractId: null, maxAttempts: null });
      const evaluation = await judge(f, goal, { score: 82 });
      expect(evaluation).toMatchObject({ verdict: "SUCCESS", goalStatus: "NO_CONTRACT", contractId: null, trustScore: 82, attemptNumber: 2 });
    });

    it("D: multiple criteria, two of three met → PARTIAL, 'Goal criteria not met: 2/3 criteria passed'", async () => {
      const { f, goal } = await goalWith(engine, {
        goalText: "Analyze customer churn with statistical evidence",
        acceptanceCriteria: [
          { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.75 },
          { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" },
          { id: "AC3", kind: "finding_count", minCount: 2 },
        ],
      });
      const output = "[METRIC:baseline_accuracy] 0.61\n[METRIC:cv_accuracy_mean] 0.78\n[FINDING] churn rises with support tickets";
      const evaluation = await judge(f, goal, { evidence: { output, verifiedFindings: 1 }, score: 88 });
      expect(evaluation).toMatchObject({ verdict: "PARTIAL", goalStatus: "NOT_MET", metCount: 2, totalCount: 3 });
      expect(evaluation.summary).toBe("Goal criteria not met: 2/3 criteria passed");
      expect(evaluation.criteriaResults.map((r) => (r as { status: string }).status)).toEqual(["MET", "MET", "NOT_MET"]);
    });

    it("max attempts without success → BLOCKED, after which the goal takes no more evaluations", async () => {
      const { f, goal } = await goalWith(engine, accuracy(0.9, 2));
      expect((await judge(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.7 } }, score: 90 })).verdict).toBe("PARTIAL");
      const second = await judge(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.8 } }, score: 90 });
      expect(second).toMatchObject({ verdict: "BLOCKED", attemptNumber: 2, maxAttempts: 2 });
      expect(second.reason).toMatch(/^max goal attempts \(2\) reached without success/);
      // A BLOCKED goal takes no third implementation attempt (a breakdown into sub-goals is still allowed).
      await expectNothingWritten(f.db, async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal }), "attempt.goal_blocked");
      expect((await startAttempt(f.as(ORCHESTRATOR), { goalId: goal, attemptType: "breakdown" })).attempt.attemptType).toBe("breakdown");
      expect((await listEvaluations(f.db, { goalId: goal })).map((e) => e.verdict)).toEqual(["PARTIAL", "BLOCKED"]);
    });
  });
});
