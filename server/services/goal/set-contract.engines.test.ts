import { sql } from "drizzle-orm";
import { rawRun } from "@/db/query";

import { describe, expect, it } from "vitest";
import type { ValidationError } from "@/server/domain/errors";
import { evaluateGoalGate } from "./evaluate";
import { setGoalContract } from "./set-contract";
import {
  LEAD,
  ORCHESTRATOR,
  VERIFIER,
  expectNothingWritten,
  expectRefused,
  finishedAttempt,
  lastEvent,
  rootGoal,
  rowCount,
  setup,
} from "@/test/support/goal-fixtures";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { refusedWith } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const CHURN = {
  goalText: "Analyze customer churn with statistical evidence",
  goalType: "ml_classification",
  acceptanceCriteria: [
    { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.75 },
    { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" },
    { id: "AC3", kind: "finding_count", minCount: 2 },
  ],
};

describeEngines("goal set-contract", (engine) => {
  describe("setGoalContract", () => {
    it("stores the validated contract and its criteria in order, with the event", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const stored = await setGoalContract(f.as(LEAD), { goalId: goal, contract: CHURN });
      expect(stored.row).toMatchObject({
        goalId: goal,
        goalText: CHURN.goalText,
        goalType: "ml_classification",
        maxGoalAttempts: 3,
        version: 1,
        createdBy: "lead@example.com",
      });
      expect(stored.criteria.map((c) => [c.key, c.position, c.kind])).toEqual([
        ["AC1", 0, "metric_threshold"],
        ["AC2", 1, "marker_required"],
        ["AC3", 2, "finding_count"],
      ]);
      expect(stored.criteria[0]).toMatchObject({ metric: "cv_accuracy_mean", op: ">=", target: 0.75, marker: null, minCount: null });
      expect(stored.contract.acceptanceCriteria[2]).toEqual({ id: "AC3", kind: "finding_count", minCount: 2 });
      expect(await lastEvent(f.db)).toMatchObject({
        type: "goal.contract_set",
        entity: "goal",
        entityId: String(goal),
        data: { criteria: 3, maxGoalAttempts: 3, replaced: false },
      });
    });

    it("replaces the contract in place before any evaluation: criteria change, new ones are added", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const first = await setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: CHURN });
      const next = {
        goalText: "Churn, stricter",
        maxGoalAttempts: 5,
        acceptanceCriteria: [
          { id: "AC3", kind: "finding_count", minCount: 3 },
          { id: "AC1", kind: "artifact_exists", artifactPattern: "*.pkl" },
          { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_*" },
          { id: "AC4", kind: "metric_threshold", metric: "auc", op: ">", target: 0.8 },
        ],
      };
      const stored = await setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: next });
      expect(stored.row).toMatchObject({ id: first.row.id, goalText: "Churn, stricter", goalType: null, maxGoalAttempts: 5 });
      expect(stored.criteria.map((c) => [c.key, c.position])).toEqual([
        ["AC3", 0],
        ["AC1", 1],
        ["AC2", 2],
        ["AC4", 3],
      ]);
      // A criterion whose kind changed keeps nothing of its old kind.
      expect(stored.criteria[1]).toMatchObject({ kind: "artifact_exists", artifactPattern: "*.pkl", metric: null, op: null, target: null });
      expect(await rowCount(f.db, "goal_contracts")).toBe(1);
      expect(await rowCount(f.db, "acceptance_criteria")).toBe(4);
      expect((await lastEvent(f.db)).data).toMatchObject({ criteria: 4, maxGoalAttempts: 5, replaced: true });
    });

    it("refuses a replacement that drops a criterion (criteria are never deleted)", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      await setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: CHURN });
      const fewer = { ...CHURN, acceptanceCriteria: CHURN.acceptanceCriteria.slice(0, 2) };
      const error = await expectNothingWritten(
        f.db,
        async () => setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: fewer }),
        "goal_contract.criterion_removed",
      );
      expect(error.message).toContain("AC3");
    });

    it("is immutable once an attempt was evaluated against it; the trigger backs the domain check", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const { row } = await setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: CHURN });
      const attempt = await finishedAttempt(f, goal, { evidence: { metrics: { cv_accuracy_mean: 0.6 } }, score: 90 });
      await evaluateGoalGate(f.as(VERIFIER), { attemptId: attempt });
      const easier = { ...CHURN, acceptanceCriteria: CHURN.acceptanceCriteria.map((c) => (c.id === "AC1" ? { ...c, target: 0.5 } : c)) };
      const error = await expectNothingWritten(f.db, async () => setGoalContract(f.as(LEAD), { goalId: goal, contract: easier }), "goal_contract.immutable");
      expect(error.message, "refused by the service before the trigger").toBe(
        `goal ${goal}'s contract was used to evaluate an attempt; it can no longer change`,
      );
      expect(await refusedWith(rawRun(f.db, sql`UPDATE acceptance_criteria SET target = 0.5 WHERE contract_id = ${row.id}`))).toMatch(
        /goal_contract\.immutable/,
      );
    });

    it("refuses an invalid contract with the domain's rule and field, writing nothing", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const missingTarget = { ...CHURN, acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "acc", op: ">=" }] };
      const error = await expectNothingWritten(
        f.db,
        async () => setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: missingTarget }),
        "goal_contract.metric_threshold_requires_target",
      );
      expect((error as ValidationError).field).toBe("acceptanceCriteria[0].target");
      await expectNothingWritten(f.db, async () => setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: null }), "goal_contract.not_an_object");
    });

    it("refuses contracts over the storage limits and unknown goals", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const many = { goalText: "many", acceptanceCriteria: Array.from({ length: 101 }, (_, i) => ({ id: `AC${i}`, kind: "finding_count", minCount: 1 })) };
      await expectNothingWritten(f.db, async () => setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: many }), "goal_contract.too_large");
      const longMetric = { goalText: "g", acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "m".repeat(201), op: ">=", target: 1 }] };
      await expectNothingWritten(f.db, async () => setGoalContract(f.as(ORCHESTRATOR), { goalId: goal, contract: longMetric }), "goal_contract.too_large");
      await expectNothingWritten(f.db, async () => setGoalContract(f.as(ORCHESTRATOR), { goalId: 77, contract: CHURN }), "goal.not_found");
    });

    it("is refused to a verifier", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      await expectRefused(async () => setGoalContract(f.as(VERIFIER), { goalId: goal, contract: CHURN }), "goal_contract.set_role");
    });
  });
});
