import { describe, expect, it } from "vitest";
import { type Actor, operatorActor } from "@/server/domain/actors";
import { RoleForbiddenError } from "@/server/domain/errors";
import { ORCHESTRATOR, VERIFIER, expectNothingWritten, finishedAttempt, lastEvent, rootGoal, setup } from "@/test/support/goal-fixtures";
import { finishAttempt } from "./finish";
import { recordTrustScore } from "./record-trust-score";
import { recordToolCalls } from "./record-tool-calls";
import { startAttempt } from "./start";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("attempt record-trust-score", (engine) => {
  describe("recordTrustScore", () => {
    it("appends a verifier's score for a finished attempt, with the event", async () => {
      const f = await setup(await freshLedger(engine));
      const attemptId = await finishedAttempt(f, await rootGoal(f));
      const first = await recordTrustScore(f.as(VERIFIER), { attemptId, score: 72.5, notes: "no confidence intervals" });
      const second = await recordTrustScore(f.as(VERIFIER), { attemptId, score: 85 });
      expect(first).toMatchObject({ attemptId, score: 72.5, notes: "no confidence intervals", actor: "verifier_1", principalId: "token:verifier_1" });
      expect(second.id).toBeGreaterThan(first.id);
      expect(await lastEvent(f.db)).toMatchObject({ type: "attempt.trust_scored", entity: "attempt", entityId: String(attemptId), data: { score: 85 } });
    });

    it("refuses scores outside 0..100, unfinished and unknown attempts, writing nothing", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const attemptId = await finishedAttempt(f, goal);
      await expectNothingWritten(f.db, async () => recordTrustScore(f.as(VERIFIER), { attemptId, score: 101 }), "trust_score.invalid_input");
      await expectNothingWritten(f.db, async () => recordTrustScore(f.as(VERIFIER), { attemptId, score: -1 }), "trust_score.invalid_input");
      const running = (await startAttempt(f.as(ORCHESTRATOR), { goalId: goal })).attempt.id;
      await expectNothingWritten(f.db, async () => recordTrustScore(f.as(VERIFIER), { attemptId: running, score: 90 }), "trust_score.attempt_unfinished");
      await expectNothingWritten(f.db, async () => recordTrustScore(f.as(VERIFIER), { attemptId: 999, score: 90 }), "attempt.not_found");
    });

    describe("the attempt's own agent may not score it", () => {
      const alice: Actor = { principalId: "user:alice", principalKind: "user", role: "admin", label: "alice" };

      it("refuses by principal: the same user under another label", async () => {
        const f = await setup(await freshLedger(engine));
        const { attempt } = await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f) });
        await recordToolCalls(f.as(alice), { attemptId: attempt.id, calls: [{ tool: "read_file" }] });
        await finishAttempt(f.as(ORCHESTRATOR), { attemptId: attempt.id, status: "completed" });
        const error = await expectNothingWritten(
          f.db,
          async () => recordTrustScore(f.as({ ...alice, label: "alice-reviewing" }), { attemptId: attempt.id, score: 95 }),
          "trust_score.own_attempt",
        );
        expect(error).toBeInstanceOf(RoleForbiddenError);
      });

      it("refuses by label, and for the shared local operator only by label", async () => {
        const f = await setup(await freshLedger(engine));
        const { attempt } = await startAttempt(f.as(operatorActor("developer_1")), { goalId: await rootGoal(f) });
        await finishAttempt(f.as(operatorActor("developer_1")), { attemptId: attempt.id, status: "completed" });
        await expectNothingWritten(
          f.db,
          async () => recordTrustScore(f.as(operatorActor("developer_1")), { attemptId: attempt.id, score: 95 }),
          "trust_score.own_attempt",
        );
        await expectNothingWritten(
          f.db,
          async () => recordTrustScore(f.as({ ...VERIFIER, label: "developer_1" }), { attemptId: attempt.id, score: 95 }),
          "trust_score.own_attempt",
        );
        expect((await recordTrustScore(f.as(operatorActor("verifier_1")), { attemptId: attempt.id, score: 95 })).actor).toBe("verifier_1");
      });
    });
  });
});
