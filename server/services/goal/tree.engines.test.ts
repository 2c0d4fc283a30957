import { mapInOrder } from "../in-order";
import { describe, expect, it } from "vitest";
import { finishAttempt } from "../attempt/finish";
import { recordToolCalls } from "../attempt/record-tool-calls";
import { recordTrustScore } from "../attempt/record-trust-score";
import { startAttempt } from "../attempt/start";
import { addValidationStep } from "./add-validation-step";
import { createBranch } from "./create-branch";
import { createGoal } from "./create";
import { evaluateGoalGate } from "./evaluate";
import { listEvaluations } from "./evaluations";
import { getGoal } from "./get";
import { setGoalContract } from "./set-contract";
import { type Fixture, ORCHESTRATOR, VERIFIER, expectRefused, finishedAttempt, rootGoal, setup } from "@/test/support/goal-fixtures";
import { getGoalTree } from "./tree";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

/** A stuck root goal, broken down into two sub-goals, the first of which succeeds. */
async function brokenDownSession(engine: Engine): Promise<{ f: Fixture; root: number; subs: number[]; attempts: Record<string, number> }> {
  const f = await setup(await freshLedger(engine));
  const root = await rootGoal(f, "Migrate the monorepo to Bazel");
  await rootGoal(f, "Second root");
  await setGoalContract(f.as(ORCHESTRATOR), {
    goalId: root,
    contract: {
      goalText: "Bazel build green",
      acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "tests_failed", op: "==", target: 0 }],
      maxGoalAttempts: 2,
    },
  });
  await addValidationStep(f.as(ORCHESTRATOR), { goalId: root, command: "bazel build //..." });
  await createBranch(f.as(ORCHESTRATOR), { sessionId: f.sessionId, name: "goal-root", createdByGoalId: root });

  const { attempt: first } = await startAttempt(f.as(ORCHESTRATOR), { goalId: root, model: "model-a", tools: ["read_file", "write_file"] });
  await recordToolCalls(f.as(ORCHESTRATOR), { attemptId: first.id, calls: [{ tool: "read_file" }, { tool: "write_file" }, { tool: "read_file" }] });
  f.advance(90_000);
  await finishAttempt(f.as(ORCHESTRATOR), { attemptId: first.id, status: "completed", metrics: { tests_failed: 4 } });
  await recordTrustScore(f.as(VERIFIER), { attemptId: first.id, score: 90 });
  await evaluateGoalGate(f.as(VERIFIER), { attemptId: first.id });

  const breakdown = await finishedAttempt(f, root, { attemptType: "breakdown", model: "model-b" });
  const subs = await mapInOrder(
    ["Port //app", "Port //lib"],
    async (goalText) => (await createGoal(f.as(ORCHESTRATOR), { sessionId: f.sessionId, goalText, parentGoalId: root, createdByAttemptId: breakdown })).id,
  );
  const subAttempt = await finishedAttempt(f, subs[0]!, { status: "success", score: 92 });
  await evaluateGoalGate(f.as(VERIFIER), { attemptId: subAttempt });
  const running = (await startAttempt(f.as(ORCHESTRATOR), { goalId: subs[1]! })).attempt.id;
  return { f, root, subs, attempts: { first: first.id, breakdown, subAttempt, running } };
}

describeEngines("goal tree", (engine) => {
  describe("getGoalTree", () => {
    it("returns the session's goals as a tree with contracts, attempts in order and verdicts", async () => {
      const { f, subs, attempts } = await brokenDownSession(engine);
      const tree = await getGoalTree(f.db, { sessionId: f.sessionId });
      expect(tree.goals.map((n) => n.goal.goalText)).toEqual(["Migrate the monorepo to Bazel", "Second root"]);
      const node = tree.goals[0]!;
      expect(node).toMatchObject({ attemptsUsed: 1, maxAttempts: 2, verdict: "PARTIAL" });
      expect(node.contract?.criteria.map((c) => c.key)).toEqual(["AC1"]);
      expect(node.attempts).toEqual([
        expect.objectContaining({
          id: attempts.first,
          number: 1,
          label: "attempt 1 of 2",
          status: "completed",
          durationMs: 90_000,
          toolCallCount: 3,
          latestTrustScore: 90,
          latestEvaluation: expect.objectContaining({ verdict: "PARTIAL" }),
        }),
        expect.objectContaining({
          id: attempts.breakdown,
          attemptType: "breakdown",
          number: null,
          label: "breakdown",
          status: "completed",
          durationMs: 60_000,
          toolCallCount: 0,
          latestEvaluation: null,
        }),
      ]);
      expect(node.children.map((c) => [c.goal.id, c.goal.order, c.goal.source, c.goal.createdByAttemptId])).toEqual([
        [subs[0], 1, "breakdown", attempts.breakdown],
        [subs[1], 2, "breakdown", attempts.breakdown],
      ]);
      expect(node.children[0]).toMatchObject({ verdict: "SUCCESS", contract: null, maxAttempts: null });
      expect(node.children[0]!.attempts[0]).toMatchObject({ label: "attempt 1", status: "success" });
      expect(node.children[1]!.attempts[0]).toMatchObject({ id: attempts.running, status: null, finishedAt: null, durationMs: null });
      expect(tree.goals[1]).toMatchObject({ attempts: [], children: [], verdict: null, contract: null });
    });

    it("refuses an unknown session and a malformed id", async () => {
      const f = await setup(await freshLedger(engine));
      await expectRefused(async () => getGoalTree(f.db, { sessionId: "missing" }), "session.not_found");
      await expectRefused(async () => getGoalTree(f.db, { sessionId: "bad id!" }), "goal.invalid_input");
    });
  });

  describe("getGoal and listEvaluations", () => {
    it("return one goal with everything under it, and its evaluations in order", async () => {
      const { f, root, subs } = await brokenDownSession(engine);
      const detail = await getGoal(f.db, { goalId: root });
      expect(detail.goal.id).toBe(root);
      expect(detail.validationSteps.map((s) => s.command)).toEqual(["bazel build //..."]);
      expect(detail.branches.map((b) => b.name)).toEqual(["goal-root"]);
      expect(detail.evaluations.map((e) => e.verdict)).toEqual(["PARTIAL"]);
      expect(detail.children.map((c) => c.goal.id)).toEqual(subs);
      expect(await getGoal(f.db, { goalId: subs[0]! })).toMatchObject({ verdict: "SUCCESS", children: [], validationSteps: [], branches: [] });
      expect((await listEvaluations(f.db, { goalId: subs[0]! })).map((e) => [e.verdict, e.attemptNumber])).toEqual([["SUCCESS", 1]]);
    });

    it("refuse unknown goals", async () => {
      const f = await setup(await freshLedger(engine));
      await expectRefused(async () => getGoal(f.db, { goalId: 5 }), "goal.not_found");
      await expectRefused(async () => listEvaluations(f.db, { goalId: 5 }), "goal.not_found");
    });
  });
});
