import { describe, expect, it } from "vitest";
import { PASSED, expectBadRequest, expectNotFound, refusal, setup } from "@/test/support/api-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const S = { sessionId: "s1" };

describeEngines("completion preview", (engine) => {
  describe("completion.preview: the gate's verdict without a recorded check", () => {
    it("gives a viewer the same verdict, reasons and met/total the check would record, and writes nothing", async () => {
      const f = setup(await freshLedger(engine));
      await f.as("orchestrator").session.create({ id: "s1" });
      await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }] });
      await f.as("orchestrator").task.create({ ...S, key: "t1", title: "Implement" });
      await f.as("developer").task.claim({ ...S, key: "t1" });
      await f.as("developer").criteria.update({ ...S, criterion: "All tests passing", status: "met", actual: "120/120" });
      await f.as("developer").criteria.update({ ...S, criterion: "Coverage >70%", status: "met", actual: "82%" });
      await f.as("verifier").criteria.verify({ ...S, criterion: "Coverage >70%", status: "failed", actual: "64%" });

      const before = await tableCountsOf(f.db);
      const preview = await f.as("viewer").completion.preview(S);
      expect(await tableCountsOf(f.db)).toEqual(before);
      expect(preview).toEqual({
        sessionId: "s1",
        accepted: false,
        metCount: 1,
        totalCount: 2,
        externallyBlocked: 0,
        reasons: ["Only 1/2 criteria met", 'Criterion "Coverage >70%" is not met: claimed met but the verifier found failed', "1 task is claimed: t1"],
        discrepancies: ['"Coverage >70%": claimed met, verifier found failed'],
      });

      const check = await f.as("orchestrator").completion.check(S);
      expect({ accepted: check.accepted, reasons: check.reasons, metCount: check.metCount, totalCount: check.totalCount }).toEqual({
        accepted: preview.accepted,
        reasons: preview.reasons,
        metCount: preview.metCount,
        totalCount: preview.totalCount,
      });
    });

    it("follows the session as it changes: accepted once every rule holds", async () => {
      const f = setup(await freshLedger(engine));
      await f.as("orchestrator").session.create({ id: "s1" });
      expect(await f.as("viewer").completion.preview(S)).toMatchObject({
        accepted: false,
        metCount: 0,
        totalCount: 0,
        reasons: [expect.stringContaining("No required success criteria")],
      });
      await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "Ships" }] });
      await f.as("orchestrator").task.create({ ...S, key: "t1", title: "Implement" });
      await f.as("developer").task.claim({ ...S, key: "t1" });
      await f.as("verifier").task.verify({ ...S, key: "t1", proofpack: PASSED });
      await f.as("orchestrator").task.complete({ ...S, key: "t1" });
      await f.as("developer").criteria.update({ ...S, criterion: "Ships", status: "met" });
      expect(await f.as("viewer").completion.preview(S)).toMatchObject({ accepted: true, reasons: [], metCount: 1, totalCount: 1 });
      expect(await f.as("viewer").completion.list(S)).toEqual([]);
    });

    it("answers NOT_FOUND for an unknown session, names a bad sessionId, and needs a caller", async () => {
      const f = setup(await freshLedger(engine));
      await expectNotFound(f.as("viewer").completion.preview({ sessionId: "nope" }));
      await expectBadRequest(f.as("viewer").completion.preview({ sessionId: "" }), "sessionId");
      expect((await expectBadRequest(f.as("viewer").completion.preview({ sessionId: "s1", extra: 1 } as never), "extra")).message).toBe(
        "extra: is not a known field",
      );
      expect((await refusal(f.by(null).completion.preview(S))).code).toBe("UNAUTHORIZED");
    });
  });
});
