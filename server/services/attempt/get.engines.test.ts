import { mapInOrder } from "../in-order";
import { describe, expect, it } from "vitest";
import { addValidationStep } from "../goal/add-validation-step";
import { evaluateGoalGate } from "../goal/evaluate";
import { setGoalContract } from "../goal/set-contract";
import { ORCHESTRATOR, VERIFIER, expectRefused, rootGoal, setup } from "@/test/support/goal-fixtures";
import { finishAttempt } from "./finish";
import { getAttempt } from "./get";
import { recordToolCalls } from "./record-tool-calls";
import { recordTrustScore } from "./record-trust-score";
import { recordValidationRun } from "./record-validation-run";
import { startAttempt } from "./start";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

async function recordedAttempt(engine: Engine) {
  const f = await setup(await freshLedger(engine));
  const goal = await rootGoal(f);
  await setGoalContract(f.as(ORCHESTRATOR), {
    goalId: goal,
    contract: { goalText: "g", acceptanceCriteria: [{ id: "AC1", kind: "finding_count", minCount: 1 }], maxGoalAttempts: 4 },
  });
  const steps = await mapInOrder(["npm test", "npm run build"], async (command) => (await addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command })).id);
  const { attempt } = await startAttempt(f.as(ORCHESTRATOR), { goalId: goal, tools: ["write_file", "read_file"] });
  await recordToolCalls(f.as(ORCHESTRATOR), {
    attemptId: attempt.id,
    calls: Array.from({ length: 250 }, (_, i) => ({ tool: "read_file", output: `call ${i + 1}` })),
  });
  await finishAttempt(f.as(ORCHESTRATOR), { attemptId: attempt.id, status: "completed", verifiedFindings: 2 });
  await recordValidationRun(f.as(ORCHESTRATOR), { attemptId: attempt.id, validationStepId: steps[1]!, exitCode: 0 });
  await recordValidationRun(f.as(ORCHESTRATOR), { attemptId: attempt.id, validationStepId: steps[0]!, exitCode: 1 });
  await recordTrustScore(f.as(VERIFIER), { attemptId: attempt.id, score: 60 });
  await recordTrustScore(f.as(VERIFIER), { attemptId: attempt.id, score: 90 });
  await evaluateGoalGate(f.as(VERIFIER), { attemptId: attempt.id });
  return { f, attemptId: attempt.id };
}

describeEngines("attempt get", (engine) => {
  describe("getAttempt", () => {
    it("returns the attempt with its tools, result, validation runs, trust scores and evaluations", async () => {
      const { f, attemptId } = await recordedAttempt(engine);
      const detail = await getAttempt(f.db, { attemptId });
      expect(detail).toMatchObject({ sessionId: "s1", number: 1, maxAttempts: 4, result: { status: "completed", verifiedFindings: 2 } });
      expect(detail.tools.map((t) => t.name)).toEqual(["read_file", "write_file"]);
      expect(detail.validationRuns.map((r) => [r.command, r.stepOrder, r.exitCode])).toEqual([
        ["npm run build", 2, 0],
        ["npm test", 1, 1],
      ]);
      expect(detail.trustScores.map((t) => t.score)).toEqual([60, 90]);
      expect(detail.evaluations.map((e) => [e.verdict, e.trustScore])).toEqual([["SUCCESS", 90]]);
    });

    it("pages tool calls by order with a cursor", async () => {
      const { f, attemptId } = await recordedAttempt(engine);
      const first = await getAttempt(f.db, { attemptId });
      expect(first.toolCalls).toHaveLength(100);
      expect(first.toolCalls[0]).toMatchObject({ order: 1, output: "call 1" });
      expect(first.nextCursor).toBe(100);
      const second = await getAttempt(f.db, { attemptId, cursor: first.nextCursor!, limit: 120 });
      expect(second.toolCalls.map((c) => c.order)).toEqual(Array.from({ length: 120 }, (_, i) => 101 + i));
      const last = await getAttempt(f.db, { attemptId, cursor: second.nextCursor!, limit: 120 });
      expect(last.toolCalls.map((c) => c.order)).toEqual(Array.from({ length: 30 }, (_, i) => 221 + i));
      expect(last.nextCursor).toBeNull();
    });

    it("shows a running attempt with no result, and refuses unknown attempts and bad paging", async () => {
      const f = await setup(await freshLedger(engine));
      const { attempt } = await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f), attemptType: "breakdown" });
      expect(await getAttempt(f.db, { attemptId: attempt.id })).toMatchObject({
        number: null,
        maxAttempts: null,
        result: null,
        toolCalls: [],
        nextCursor: null,
        validationRuns: [],
        trustScores: [],
      });
      await expectRefused(async () => getAttempt(f.db, { attemptId: 999 }), "attempt.not_found");
      await expectRefused(async () => getAttempt(f.db, { attemptId: attempt.id, limit: 501 }), "attempt.invalid_input");
    });
  });
});
