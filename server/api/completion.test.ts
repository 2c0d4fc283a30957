import { describe, expect, it } from "vitest";
import { type Fixture, PASSED, count, eventTypes, expectForbidden, expectNotFound, expectNothingWritten, rows, setup } from "@/test/support/api-helpers";

const S = { sessionId: "s1" };

/** A session with two required criteria and one task, all done properly. */
async function doneSession(): Promise<Fixture> {
  const f = setup();
  await f.as("orchestrator").session.create({ id: "s1" });
  await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }] });
  await f.as("orchestrator").task.create({ ...S, key: "t1", title: "Implement" });
  await f.as("developer").task.claim({ ...S, key: "t1", evidence: ["ci/run/1"] });
  await f.as("verifier").task.verify({ ...S, key: "t1", proofpack: PASSED });
  await f.as("orchestrator").task.complete({ ...S, key: "t1" });
  await f.as("developer").criteria.update({ ...S, criterion: "All tests passing", status: "met", actual: "120/120", evidence: "ci/run/1" });
  await f.as("developer").criteria.update({ ...S, criterion: "Coverage >70%", status: "met", actual: "82%" });
  await f.as("verifier").criteria.verify({ ...S, criterion: "Coverage >70%", status: "met", actual: "82%" });
  return f;
}

describe("completion gate: the accepted path", () => {
  it("accepts when every required criterion is met and every task is completed and verified, then lets the session complete", async () => {
    const f = await doneSession();
    const check = await f.as("orchestrator").completion.check({ ...S, claimedVerdict: "BAZINGA" });
    expect(check).toMatchObject({
      sessionId: "s1",
      accepted: true,
      reasons: [],
      metCount: 2,
      totalCount: 2,
      claimedVerdict: "BAZINGA",
      source: "gate",
      actor: "orchestrator_1",
    });
    expect(rows(f.db, "select accepted, met_count, total_count from completion_checks")).toEqual([{ accepted: 1, met_count: 2, total_count: 2 }]);

    const { session, check: gate } = await f.as("orchestrator").session.updateStatus({ ...S, status: "completed" });
    expect(session).toMatchObject({ id: "s1", status: "completed" });
    expect(session.endedAt).toBeInstanceOf(Date);
    expect(gate).toMatchObject({ accepted: true, reasons: [] });
    expect(rows(f.db, "select status from sessions")).toEqual([{ status: "completed" }]);
    expect(count(f.db, "completion_checks", "accepted = 1")).toBe(2);
    expect(eventTypes(f.db, "s1").slice(-3)).toEqual(["completion.checked", "completion.checked", "session.status_changed"]);

    const listed = await f.as("viewer").completion.list(S);
    expect(listed.map((c) => c.id)).toEqual([gate!.id, check.id]);
    expect(await f.as("viewer").completion.list({ ...S, limit: 1 })).toHaveLength(1);
  });

  it("accepts a required criterion blocked by a documented external blocker (Path B)", async () => {
    const f = await doneSession();
    await f
      .as("developer")
      .criteria.update({ ...S, criterion: "All tests passing", status: "blocked", evidence: "payment sandbox down (status.stripe.com incident)" });
    expect(await f.as("orchestrator").completion.check(S)).toMatchObject({ accepted: true, metCount: 2 });
    await f.as("developer").criteria.update({ ...S, criterion: "All tests passing", evidence: "" });
    const check = await f.as("orchestrator").completion.check(S);
    expect(check.accepted).toBe(false);
    expect(check.reasons).toContain('Criterion "All tests passing" is not met: blocked with no evidence naming an external blocker');
  });

  it("rejects while a task is not completed, naming it", async () => {
    const f = await doneSession();
    await f.as("orchestrator").task.create({ ...S, key: "t2", title: "Late addition" });
    await f.as("developer").task.claim({ ...S, key: "t2" });
    const check = await f.as("verifier").completion.check(S);
    expect(check).toMatchObject({ accepted: false, reasons: ["1 task is claimed: t2"] });
    await expectForbidden(f.as("lead").session.updateStatus({ ...S, status: "completed" }), "completion.rejected");
  });
});

describe("completion refusals", () => {
  it("refuses a viewer running the check (completion.check_role) and writes nothing", async () => {
    const f = await doneSession();
    const r = await expectNothingWritten(f.db, () => f.as("viewer").completion.check(S));
    expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "completion.check_role" } });
  });

  it.each(["developer", "verifier", "orchestrator", "lead", "admin"] as const)("lets a %s run the check", async (name) => {
    const f = await doneSession();
    expect((await f.as(name).completion.check(S)).accepted).toBe(true);
  });

  it("answers NOT_FOUND when checking an unknown session, and writes nothing", async () => {
    const f = await doneSession();
    const r = await expectNothingWritten(f.db, () => f.as("orchestrator").completion.check({ sessionId: "nope" }));
    expect(r.code).toBe("NOT_FOUND");
  });

  it("answers NOT_FOUND when listing checks of an unknown session", async () => {
    const f = await doneSession();
    await expectNotFound(f.as("viewer").completion.list({ sessionId: "nope" }));
  });

  it("refuses malformed input and writes nothing", async () => {
    const f = await doneSession();
    await expectNothingWritten(f.db, () => f.as("orchestrator").completion.check({ sessionId: "" }));
    await expectNothingWritten(f.db, () => f.as("orchestrator").completion.check({ ...S, claimedVerdict: "x".repeat(201) }));
    await expectNothingWritten(f.db, () => f.as("viewer").completion.list({ ...S, limit: 0 }));
  });
});
