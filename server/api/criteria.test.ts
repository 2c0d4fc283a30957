import { nextMillisecond } from "@/test/support/clock";
import { describe, expect, it } from "vitest";
import {
  type Fixture,
  count,
  eventTypes,
  expectBadRequest,
  expectForbidden,
  expectNotFound,
  expectNothingWritten,
  procedurePaths,
  rows,
  setup,
} from "@/test/support/api-helpers";

const S = { sessionId: "s1" };

async function withSession(): Promise<Fixture> {
  const f = setup();
  await f.as("orchestrator").session.create({ id: "s1" });
  return f;
}

async function threeCriteria(f: Fixture): Promise<void> {
  await f
    .as("orchestrator")
    .criteria.save({ ...S, criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }, { criterion: "Docs updated" }] });
}

describe("000 Test 1: a new session's criteria, from pending to met", () => {
  it("saves criteria as pending, updates one to met with actual and evidence, and lists it with its history", async () => {
    const f = await withSession();
    const saved = await f
      .as("orchestrator")
      .criteria.save({ ...S, criteria: [{ criterion: "All tests passing" }, { criterion: "Coverage >70%", requiredForCompletion: true }] });
    expect(saved.map((c) => [c.criterion, c.status, c.requiredForCompletion, c.createdBy])).toEqual([
      ["All tests passing", "pending", true, "orchestrator_1"],
      ["Coverage >70%", "pending", true, "orchestrator_1"],
    ]);
    expect(rows(f.db, "select criterion, status from success_criteria where session_id = 's1' order by id")).toEqual([
      { criterion: "All tests passing", status: "pending" },
      { criterion: "Coverage >70%", status: "pending" },
    ]);

    const updated = await f
      .as("developer")
      .criteria.update({ ...S, criterion: "Coverage >70%", status: "met", actual: "82%", evidence: "coverage/lcov-report/index.html" });
    expect(updated).toMatchObject({ criterion: "Coverage >70%", status: "met", actual: "82%", evidence: "coverage/lcov-report/index.html" });
    expect(rows(f.db, "select status, actual, evidence from success_criteria where criterion = 'Coverage >70%'")).toEqual([
      { status: "met", actual: "82%", evidence: "coverage/lcov-report/index.html" },
    ]);

    const list = await f.as("viewer").criteria.list(S);
    const coverage = list.find((c) => c.criterion === "Coverage >70%")!;
    expect(coverage).toMatchObject({ status: "met", actual: "82%", effectiveStatus: "met", discrepancy: false });
    expect(coverage.history.map((h) => [h.kind, h.fromStatus, h.toStatus, h.actor, h.role, h.evidence])).toEqual([
      ["create", null, "pending", "orchestrator_1", "orchestrator", null],
      ["claim", "pending", "met", "developer_1", "agent", "coverage/lcov-report/index.html"],
    ]);
    expect(eventTypes(f.db, "s1")).toEqual(["session.created", "criteria.saved", "criteria.saved", "criterion.updated"]);
  });
});

describe("000 Test 3: concurrent updates", () => {
  it("lets two updates to different criteria both succeed", async () => {
    const f = await withSession();
    await threeCriteria(f);
    const [a, b] = await Promise.all([
      f.as("developer").criteria.update({ ...S, criterion: "All tests passing", status: "met", actual: "120/120" }),
      f.as("developer2").criteria.update({ ...S, criterion: "Coverage >70%", status: "met", actual: "75%" }),
    ]);
    expect([a.status, b.status]).toEqual(["met", "met"]);
    expect(rows(f.db, "select criterion, status from success_criteria order by id")).toEqual([
      { criterion: "All tests passing", status: "met" },
      { criterion: "Coverage >70%", status: "met" },
      { criterion: "Docs updated", status: "pending" },
    ]);
    expect(count(f.db, "criterion_updates", "kind = 'claim'")).toBe(2);
  });
});

describe("000 Test 4: duplicate prevention (UPSERT)", () => {
  it("leaves one row per criterion when the same list is saved twice, and records no change the second time", async () => {
    const f = await withSession();
    const list = [{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }];
    await f.as("orchestrator").criteria.save({ ...S, criteria: list });
    const history = count(f.db, "criterion_updates");
    const again = await f.as("orchestrator").criteria.save({ ...S, criteria: list });
    expect(again.map((c) => c.criterion)).toEqual(["All tests passing", "Coverage >70%"]);
    expect(count(f.db, "success_criteria", "session_id = 's1'")).toBe(2);
    expect(count(f.db, "criterion_updates")).toBe(history);
  });

  it("updates an existing criterion in place when the saved list carries a new status", async () => {
    const f = await withSession();
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "All tests passing" }] });
    const [row] = await f
      .as("orchestrator")
      .criteria.save({ ...S, criteria: [{ criterion: "All tests passing", status: "met", actual: "all green" }, { criterion: "New one" }] });
    expect(row).toMatchObject({ status: "met", actual: "all green" });
    expect(count(f.db, "success_criteria")).toBe(2);
    expect(rows(f.db, "select kind from criterion_updates order by id").map((r) => r.kind)).toEqual(["create", "claim", "create"]);
  });

  it("refuses a list that names one criterion twice BAD_REQUEST naming the field, all or nothing", async () => {
    const f = await withSession();
    const r = await expectNothingWritten(f.db, () =>
      f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "A" }, { criterion: "B" }, { criterion: " A " }] }),
    );
    expect(r.code).toBe("BAD_REQUEST");
    expect(r.message).toContain("criteria[2].criterion:");
    expect(r.data).toMatchObject({ rule: "criteria.duplicate_in_list", field: "criteria[2].criterion" });
  });
});

describe("000 Test 5: immutability", () => {
  it("offers no procedure that changes a criterion's text, and update refuses a new text field", async () => {
    const f = await withSession();
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "50 tests passing" }] });
    const criteriaProcedures = Object.keys(procedurePaths())
      .filter((p) => p.startsWith("criteria."))
      .sort();
    expect(criteriaProcedures).toEqual(["criteria.list", "criteria.save", "criteria.setRequired", "criteria.update", "criteria.verify"]);
    await expectNothingWritten(f.db, () =>
      f.as("orchestrator").criteria.update({ ...S, criterion: "50 tests passing", newCriterion: "ALL tests passing", status: "met" } as never),
    );
    expect(rows(f.db, "select criterion from success_criteria")).toEqual([{ criterion: "50 tests passing" }]);
  });

  it("refuses a raw SQL UPDATE of the text through the trigger", async () => {
    const f = await withSession();
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "50 tests passing" }] });
    expect(() => f.db.$client.prepare("update success_criteria set criterion = 'ALL tests passing' where session_id = 's1'").run()).toThrow(
      /criteria\.immutable/,
    );
    expect(() => f.db.$client.prepare("update success_criteria set session_id = 's2' where session_id = 's1'").run()).toThrow(
      /criteria\.immutable|FOREIGN KEY/,
    );
    expect(rows(f.db, "select criterion from success_criteria")).toEqual([{ criterion: "50 tests passing" }]);
  });

  it("keeps both rows when a new criterion supersedes the old one", async () => {
    const f = await withSession();
    const [old] = await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "50 tests passing" }] });
    await nextMillisecond();
    const [replacement] = await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "ALL tests passing", supersedes: "50 tests passing" }] });
    expect(replacement).toMatchObject({ criterion: "ALL tests passing", supersedesId: old!.id });
    const stored = rows<{ criterion: string; supersedes_id: number | null; created_at: number }>(
      f.db,
      "select criterion, supersedes_id, created_at from success_criteria order by id",
    );
    expect(stored.map((r) => [r.criterion, r.supersedes_id])).toEqual([
      ["50 tests passing", null],
      ["ALL tests passing", old!.id],
    ]);
    expect(stored[1]!.created_at).toBeGreaterThan(stored[0]!.created_at);
  });

  it("keeps the superseded criterion in the gate until a lead drops it: superseding is no way around a goalpost", async () => {
    const f = await withSession();
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "50 tests passing" }] });
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "ALL tests passing", supersedes: "50 tests passing", status: "met" }] });
    expect(await f.as("orchestrator").completion.check(S)).toMatchObject({ accepted: false, metCount: 1, totalCount: 2 });
    await f.as("lead").criteria.setRequired({ ...S, criterion: "50 tests passing", required: false });
    expect(await f.as("orchestrator").completion.check(S)).toMatchObject({ accepted: true, metCount: 1, totalCount: 1 });
  });

  it("refuses superseding a criterion that does not exist BAD_REQUEST naming the field", async () => {
    const f = await withSession();
    const r = await expectNothingWritten(f.db, () =>
      f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "ok" }, { criterion: "ALL tests passing", supersedes: "never saved" }] }),
    );
    expect(r.code).toBe("BAD_REQUEST");
    expect(r.message).toContain("criteria[1].supersedes:");
  });
});

describe("000 Test 6: BAZINGA rejection", () => {
  it("rejects 2/3 met in completion.check and refuses session completion with the reasons, keeping the session active", async () => {
    const f = await withSession();
    await threeCriteria(f);
    await f.as("developer").criteria.update({ ...S, criterion: "All tests passing", status: "met" });
    await f.as("developer").criteria.update({ ...S, criterion: "Coverage >70%", status: "met" });

    const check = await f.as("orchestrator").completion.check({ ...S, claimedVerdict: "BAZINGA" });
    expect(check).toMatchObject({ accepted: false, metCount: 2, totalCount: 3, claimedVerdict: "BAZINGA" });
    expect(check.reasons[0]).toBe("Only 2/3 criteria met");
    expect(check.reasons).toContain('Criterion "Docs updated" is not met: pending');

    const r = await expectForbidden(f.as("orchestrator").session.updateStatus({ ...S, status: "completed" }), "completion.rejected");
    expect(r.message).toContain("2/3 required criteria met");
    expect(r.data.reasons).toEqual(["Only 2/3 criteria met", 'Criterion "Docs updated" is not met: pending']);
    expect(rows(f.db, "select status from sessions")).toEqual([{ status: "active" }]);
    expect(rows(f.db, "select accepted, met_count, total_count, actor from completion_checks order by id")).toEqual([
      { accepted: 0, met_count: 2, total_count: 3, actor: "orchestrator_1" },
      { accepted: 0, met_count: 2, total_count: 3, actor: "orchestrator_1" },
    ]);
    expect(count(f.db, "events", "type = 'session.status_changed'")).toBe(0);
  });
});

describe("verifier findings", () => {
  it("records the verifier's finding beside the PM's claim; the gate trusts the verifier and the list shows the discrepancy", async () => {
    const f = await withSession();
    await f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "All tests passing", status: "met", actual: "120/120" }] });
    const verified = await f
      .as("verifier")
      .criteria.verify({ ...S, criterion: "All tests passing", status: "failed", actual: "117/120", evidence: "ci/run/42" });
    expect(verified).toMatchObject({
      status: "met",
      verifierStatus: "failed",
      verifierActual: "117/120",
      verifierEvidence: "ci/run/42",
      verifierBy: "verifier_1",
    });

    const [listed] = await f.as("viewer").criteria.list(S);
    expect(listed).toMatchObject({ status: "met", effectiveStatus: "failed", discrepancy: true });
    expect(listed!.history.map((h) => [h.kind, h.fromStatus, h.toStatus, h.actor])).toEqual([
      ["create", null, "met", "orchestrator_1"],
      ["verify", "met", "failed", "verifier_1"],
    ]);

    const check = await f.as("orchestrator").completion.check(S);
    expect(check.accepted).toBe(false);
    expect(check.reasons).toEqual(["Only 0/1 criteria met", 'Criterion "All tests passing" is not met: claimed met but the verifier found failed']);
    expect(check.details).toMatchObject({ discrepancies: ['"All tests passing": claimed met, verifier found failed'] });
    expect(eventTypes(f.db, "s1").at(-2)).toBe("criterion.verified");
  });

  it.each(["developer", "orchestrator", "viewer"] as const)("refuses a %s recording a verifier finding (criteria.verify_role)", async (name) => {
    const f = await withSession();
    await threeCriteria(f);
    const r = await expectNothingWritten(f.db, () => f.as(name).criteria.verify({ ...S, criterion: "Docs updated", status: "met" }));
    expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "criteria.verify_role" } });
  });
});

describe("criteria.setRequired", () => {
  it.each(["lead", "admin"] as const)("lets a %s drop a criterion from the gate, with a history row", async (name) => {
    const f = await withSession();
    await threeCriteria(f);
    const row = await f.as(name).criteria.setRequired({ ...S, criterion: "Docs updated", required: false });
    expect(row.requiredForCompletion).toBe(false);
    expect(rows(f.db, "select required_for_completion from success_criteria where criterion = 'Docs updated'")).toEqual([{ required_for_completion: 0 }]);
    expect(rows(f.db, "select kind, required, role from criterion_updates where kind = 'required'")).toEqual([{ kind: "required", required: 0, role: name }]);
    const check = await f.as("orchestrator").completion.check(S);
    expect(check).toMatchObject({ totalCount: 2, metCount: 0 });
    // Setting the same value again is no change: nothing new on record.
    await f.as(name).criteria.setRequired({ ...S, criterion: "Docs updated", required: false });
    expect(count(f.db, "criterion_updates", "kind = 'required'")).toBe(1);
  });

  it.each(["orchestrator", "developer", "verifier", "viewer"] as const)("refuses a %s (criteria.required_flag_role)", async (name) => {
    const f = await withSession();
    await threeCriteria(f);
    const r = await expectNothingWritten(f.db, () => f.as(name).criteria.setRequired({ ...S, criterion: "Docs updated", required: false }));
    expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "criteria.required_flag_role" } });
  });

  it("refuses a PM changing the required flag through save, all or nothing", async () => {
    const f = await withSession();
    await threeCriteria(f);
    const r = await expectNothingWritten(f.db, () =>
      f.as("orchestrator").criteria.save({
        ...S,
        criteria: [
          { criterion: "All tests passing", status: "met" },
          { criterion: "Docs updated", requiredForCompletion: false },
        ],
      }),
    );
    expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "criteria.required_flag_role" } });
    expect(rows(f.db, "select status from success_criteria where criterion = 'All tests passing'")).toEqual([{ status: "pending" }]);
  });
});

describe("criteria refusals", () => {
  it.each(["viewer", "verifier"] as const)("refuses a %s saving or updating criteria (criteria.report_role)", async (name) => {
    const f = await withSession();
    await threeCriteria(f);
    for (const call of [
      () => f.as(name).criteria.save({ ...S, criteria: [{ criterion: "x" }] }),
      () => f.as(name).criteria.update({ ...S, criterion: "Docs updated", status: "met" }),
    ]) {
      const r = await expectNothingWritten(f.db, call);
      expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "criteria.report_role" } });
    }
  });

  it("answers NOT_FOUND for an unknown session or criterion", async () => {
    const f = await withSession();
    await threeCriteria(f);
    await expectNotFound(f.as("viewer").criteria.list({ sessionId: "nope" }));
    await expectNotFound(f.as("orchestrator").criteria.save({ sessionId: "nope", criteria: [{ criterion: "x" }] }));
    const r = await expectNotFound(f.as("developer").criteria.update({ ...S, criterion: "never saved", status: "met" }));
    expect(r.data.rule).toBe("criterion.not_found");
    await expectNotFound(f.as("verifier").criteria.verify({ ...S, criterion: "never saved", status: "met" }));
    await expectNotFound(f.as("lead").criteria.setRequired({ ...S, criterion: "never saved", required: false }));
  });

  it("refuses malformed input and writes nothing", async () => {
    const f = await withSession();
    await threeCriteria(f);
    await expectNothingWritten(f.db, () => f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "fine" }, { criterion: "   " }] }));
    await expectNothingWritten(f.db, () => f.as("orchestrator").criteria.save({ ...S, criteria: [] }));
    await expectNothingWritten(f.db, () => f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "x", status: "done" as "met" }] }));
    await expectNothingWritten(f.db, () => f.as("developer").criteria.update({ ...S, criterion: "Docs updated" }));
  });

  it("refuses an empty criterion BAD_REQUEST with 'criteria[1].criterion: …'", async () => {
    const f = await withSession();
    const r = await expectBadRequest(
      f.as("orchestrator").criteria.save({ ...S, criteria: [{ criterion: "fine" }, { criterion: "   " }] }),
      "criteria[1].criterion",
    );
    expect(r.data.issues).toEqual([{ path: "criteria[1].criterion", message: "must not be empty" }]);
  });
});
