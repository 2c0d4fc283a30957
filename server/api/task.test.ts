import { describe, expect, it } from "vitest";
import {
  ACTORS,
  BLOCKED,
  PASSED,
  count,
  eventTypes,
  expectBadRequest,
  expectForbidden,
  expectNotFound,
  expectNothingWritten,
  refusal,
  rows,
  sessionWithTask,
  setup,
  tokenActor,
} from "@/test/support/api-helpers";

const T = { sessionId: "s1", key: "t1" };

interface TaskRowSql {
  status: string;
  version: number;
  claimed_by: string | null;
  claimed_by_principal: string | null;
  verified_by: string | null;
  verification: string | null;
  completed_by: string | null;
  reset_count: number;
  reset_requested: number;
  failures: string | null;
}

function storedTask(db: Parameters<typeof rows>[0], key = "t1"): TaskRowSql {
  return rows<TaskRowSql>(
    db,
    "select status, version, claimed_by, claimed_by_principal, verified_by, verification, completed_by, reset_count, reset_requested, failures from tasks where key = ?",
    key,
  )[0]!;
}

describe("task lifecycle (004): create → start → claim → verify → complete", () => {
  it("moves through every state with the right actor on each row, transition and event", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });

    const created = await f.as("orchestrator").task.create({ ...T, title: "Implement login screen", assignee: "swiftui-developer", complexity: 3 });
    expect(created).toMatchObject({ key: "t1", title: "Implement login screen", status: "pending", version: 1, assignee: "swiftui-developer", complexity: 3 });

    const started = await f.as("developer").task.start(T);
    expect(started).toMatchObject({ status: "in_progress", version: 2 });

    const claimed = await f.as("developer").task.claim({ ...T, evidence: ["screenshots/login.png", " https://ci/run/1 "] });
    expect(claimed).toMatchObject({
      status: "claimed",
      version: 3,
      claimedBy: "developer_1",
      claimedByPrincipal: "token:1",
      evidence: ["screenshots/login.png", "https://ci/run/1"],
    });
    expect(claimed.claimedAt).toBeInstanceOf(Date);

    const verified = await f
      .as("verifier")
      .task.verify({ ...T, proofpack: { ...PASSED, checks: [...PASSED.checks], path: ".orchestration/proofpacks/login.json" } });
    expect(verified).toMatchObject({
      status: "verified",
      version: 4,
      verifiedBy: "verifier_1",
      verifiedByPrincipal: "token:2",
      verification: "verified",
      proofpack: { verdict: "PASSED" },
    });

    const completed = await f.as("orchestrator").task.complete(T);
    expect(completed).toMatchObject({ status: "completed", version: 5, completedBy: "orchestrator_1", verification: "verified" });

    expect(storedTask(f.db)).toMatchObject({
      status: "completed",
      version: 5,
      claimed_by: "developer_1",
      verified_by: "verifier_1",
      verification: "verified",
      completed_by: "orchestrator_1",
    });
    const task = await f.as("viewer").task.get(T);
    expect(task.transitions.map((t) => [t.move, t.fromStatus, t.toStatus, t.actor, t.role, t.principalId])).toEqual([
      ["create", null, "pending", "orchestrator_1", "orchestrator", "token:3"],
      ["start", "pending", "in_progress", "developer_1", "agent", "token:1"],
      ["claim", "in_progress", "claimed", "developer_1", "agent", "token:1"],
      ["verify", "claimed", "verified", "verifier_1", "verifier", "token:2"],
      ["complete", "verified", "completed", "orchestrator_1", "orchestrator", "token:3"],
    ]);
    expect(task.transitions[3]).toMatchObject({ claimant: "developer_1", proofpack: { verdict: "PASSED" }, verification: "verified" });
    expect(eventTypes(f.db, "s1")).toEqual(["session.created", "task.created", "task.started", "task.claimed", "task.verified", "task.completed"]);
    expect(rows(f.db, "select tasks_total, tasks_completed, tasks_unverified from sessions")).toEqual([
      { tasks_total: 1, tasks_completed: 1, tasks_unverified: 0 },
    ]);
  });

  it("lists a session's tasks in creation order, filtered by status", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("orchestrator").task.create({ sessionId: "s1", key: "t2", title: "Second" });
    await f.as("developer").task.claim({ sessionId: "s1", key: "t2" });
    expect((await f.as("viewer").task.list({ sessionId: "s1" })).map((t) => t.key)).toEqual(["t1", "t2"]);
    expect((await f.as("viewer").task.list({ sessionId: "s1", status: "claimed" })).map((t) => t.key)).toEqual(["t2"]);
  });

  it("lets the local operator verify another agent's claim: only labels are compared for it", async () => {
    const f = setup();
    await sessionWithTask(f);
    const operator = (label: string) => ({ principalId: "operator", principalKind: "operator" as const, role: "admin" as const, label });
    await f.by(operator("developer_1")).task.claim(T);
    await expectForbidden(f.by(operator("developer_1")).task.verify({ ...T, proofpack: PASSED }), "task.claimant_cannot_verify");
    expect(await f.by(operator("verifier_1")).task.verify({ ...T, proofpack: PASSED })).toMatchObject({ status: "verified", claimedByPrincipal: null });
  });
});

describe("declining a reset request (issue 20): the task stays blocked, the request is closed with the reason", () => {
  it("records the decline as its own move with actor, role and reason, and an event; clears the request", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("developer").task.claim(T);
    const blocked = await f.as("verifier").task.block({ ...T, failures: ["3 tests failing"] });
    await expectForbidden(f.as("lead").task.declineReset({ ...T, reason: "nothing to decline" }), "task.no_reset_request");

    await f.as("orchestrator").task.requestReset({ ...T, reason: "fixes are in" });
    expect(await f.as("viewer").task.inboxCount()).toMatchObject({ resetRequested: 1 });
    for (const who of ["orchestrator", "developer", "verifier", "viewer"] as const) {
      const r = await expectNothingWritten(f.db, () => f.as(who).task.declineReset({ ...T, reason: "no" }));
      expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule: "task.decline_reset_role" } });
    }
    const noReason = await expectNothingWritten(f.db, () => f.as("lead").task.declineReset({ ...T, reason: "  " }));
    expect(noReason).toMatchObject({ code: "BAD_REQUEST", data: { field: "reason", rule: "task.reason_required" } });

    const declined = await f.as("lead").task.declineReset({ ...T, reason: "the same tests fail on main" });
    expect(declined).toMatchObject({
      status: "blocked",
      resetRequested: false,
      resetRequestedBy: null,
      resetReason: null,
      resetCount: 0,
      failures: ["3 tests failing"],
      blockedBy: "verifier_1",
    });
    expect(declined.blockedAt).toEqual(blocked.blockedAt);
    expect(await f.as("viewer").task.inboxCount()).toMatchObject({ blocked: 1, resetRequested: 0 });

    const history = await f.as("viewer").task.get(T);
    expect(history.transitions.at(-1)).toMatchObject({
      move: "decline_reset",
      fromStatus: "blocked",
      toStatus: "blocked",
      actor: "lead@example.com",
      role: "lead",
      reason: "the same tests fail on main",
    });
    expect(eventTypes(f.db, "s1").slice(-2)).toEqual(["task.reset_requested", "task.reset_declined"]);
    expect(storedTask(f.db)).toMatchObject({ status: "blocked", reset_requested: 0, reset_count: 0 });

    // Closed, not forbidden for ever: the agent may ask again, and a lead may then approve.
    await f.as("developer").task.requestReset({ ...T, reason: "now fixed on main too" });
    await expectForbidden(
      f
        .as("lead")
        .task.approveReset({ ...T, reason: "ok" })
        .then(() => f.as("lead").task.declineReset({ ...T, reason: "late" })),
      "task.decline_reset_from_pending",
    );
  });
});

describe("task blocked path: claim → block → request reset → approve reset → claim → verify → complete", () => {
  it("keeps the failed attempt in the transitions and completes on the second attempt", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("developer").task.claim({ ...T, evidence: ["dashboard.png"] });

    const blocked = await f.as("verifier").task.block({
      ...T,
      failures: ["browser_screenshot - Screenshot missing", "component_tests - 3 tests failing"],
      proofpack: { ...BLOCKED, checks: [...BLOCKED.checks] },
    });
    expect(blocked).toMatchObject({
      status: "blocked",
      blockedBy: "verifier_1",
      failures: ["browser_screenshot - Screenshot missing", "component_tests - 3 tests failing"],
    });
    await expectForbidden(f.as("orchestrator").task.complete(T), "task.complete_from_blocked");

    const requested = await f.as("orchestrator").task.requestReset({ ...T, reason: "fixes are in" });
    expect(requested).toMatchObject({ status: "blocked", resetRequested: true, resetRequestedBy: "orchestrator_1", resetReason: "fixes are in" });
    await expectForbidden(f.as("developer").task.requestReset({ ...T, reason: "again" }), "task.reset_already_requested");
    await expectForbidden(f.as("orchestrator").task.approveReset({ ...T, reason: "self-approve" }), "task.approve_reset_role");

    const reset = await f.as("lead").task.approveReset({ ...T, reason: "failures reviewed" });
    expect(reset).toMatchObject({ status: "pending", resetCount: 1, resetRequested: false, claimedBy: null, failures: null, proofpack: null, blockedBy: null });

    const afterReset = await f.as("viewer").task.get(T);
    const block = afterReset.transitions.find((t) => t.move === "block");
    expect(block).toMatchObject({
      fromStatus: "claimed",
      toStatus: "blocked",
      actor: "verifier_1",
      claimant: "developer_1",
      failures: ["browser_screenshot - Screenshot missing", "component_tests - 3 tests failing"],
      proofpack: { verdict: "BLOCKED" },
    });
    expect(afterReset.transitions.map((t) => t.move)).toEqual(["create", "claim", "block", "request_reset", "approve_reset"]);
    expect(afterReset.transitions.at(-1)).toMatchObject({
      fromStatus: "blocked",
      toStatus: "pending",
      actor: "lead@example.com",
      role: "lead",
      reason: "failures reviewed",
    });

    await f.as("developer2").task.claim(T);
    // The first claimant may judge the second attempt: it is not their claim.
    await f.as("verifier").task.verify({ ...T, proofpack: PASSED });
    const done = await f.as("lead").task.complete(T);
    expect(done).toMatchObject({ status: "completed", claimedBy: "developer_2", verification: "verified" });
    expect(eventTypes(f.db, "s1")).toEqual([
      "session.created",
      "task.created",
      "task.claimed",
      "task.blocked",
      "task.reset_requested",
      "task.reset_approved",
      "task.claimed",
      "task.verified",
      "task.completed",
    ]);
    expect(count(f.db, "task_transitions", "move = 'block'")).toBe(1);
  });
});

describe("never the claimant", () => {
  it("refuses verify and block by a different token acting under the claimant's agent label", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("developer").task.claim(T);
    const sameLabel = tokenActor(9, "verifier", "developer_1");
    const v = await expectNothingWritten(f.db, () => f.by(sameLabel).task.verify({ ...T, proofpack: PASSED }));
    expect(v).toMatchObject({ code: "FORBIDDEN", data: { rule: "task.claimant_cannot_verify" } });
    const b = await expectNothingWritten(f.db, () => f.by(sameLabel).task.block({ ...T, failures: ["nope"] }));
    expect(b).toMatchObject({ code: "FORBIDDEN", data: { rule: "task.claimant_cannot_block" } });
  });

  it("refuses verify and block by the claimant's own token principal under a different label", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("developer").task.claim(T);
    const samePrincipal = { ...ACTORS.developer, role: "verifier" as const, label: "qa_1" };
    await expectForbidden(f.by(samePrincipal).task.verify({ ...T, proofpack: PASSED }), "task.claimant_cannot_verify");
    await expectForbidden(f.by(samePrincipal).task.block({ ...T, failures: ["x"] }), "task.claimant_cannot_block");
    // An admin token that claimed may not verify its own claim by renaming itself either.
    await f.as("orchestrator").task.create({ sessionId: "s1", key: "t2", title: "Second" });
    await f.by(tokenActor(7, "admin", "ops_bot")).task.claim({ sessionId: "s1", key: "t2" });
    await expectForbidden(
      f.by(tokenActor(7, "admin", "ops_bot_2")).task.verify({ sessionId: "s1", key: "t2", proofpack: PASSED }),
      "task.claimant_cannot_verify",
    );
    expect(storedTask(f.db).status).toBe("claimed");
    expect(storedTask(f.db, "t2").status).toBe("claimed");
  });

  it("refuses an agent verifying or blocking anyone's claim (task.verify_role / task.block_role)", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("developer").task.claim(T);
    await expectForbidden(f.as("developer2").task.verify({ ...T, proofpack: PASSED }), "task.verify_role");
    await expectForbidden(f.as("developer2").task.block({ ...T, failures: ["x"] }), "task.block_role");
    await expectForbidden(f.as("orchestrator").task.verify({ ...T, proofpack: PASSED }), "task.verify_role");
    await expectForbidden(f.as("verifier").task.claim({ sessionId: "s1", key: "t1" }), "task.claim_from_claimed");
  });
});

describe("a viewer cannot write anything on tasks", () => {
  it("is refused FORBIDDEN on create, report and every move, with nothing written", async () => {
    const f = setup();
    await sessionWithTask(f);
    const viewer = f.as("viewer");
    const calls: [string, () => Promise<unknown>][] = [
      ["task.create_role", () => viewer.task.create({ sessionId: "s1", key: "t9", title: "x" })],
      ["task.report_role", () => viewer.task.report({ ...T, status: "in_progress" })],
      ["task.start_role", () => viewer.task.start(T)],
      ["task.claim_role", () => viewer.task.claim(T)],
    ];
    for (const [rule, call] of calls) {
      const r = await expectNothingWritten(f.db, call);
      expect(r.code).toBe("FORBIDDEN");
      expect(r.data.rule).toBe(rule);
    }
    await f.as("developer").task.claim(T);
    for (const [rule, call] of [
      ["task.verify_role", () => viewer.task.verify({ ...T, proofpack: PASSED })],
      ["task.block_role", () => viewer.task.block({ ...T, failures: ["x"] })],
    ] as const) {
      const r = await expectNothingWritten(f.db, call);
      expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule } });
    }
    await f.as("verifier").task.block({ ...T, failures: ["x"] });
    for (const [rule, call] of [
      ["task.request_reset_role", () => viewer.task.requestReset({ ...T, reason: "r" })],
      ["task.approve_reset_role", () => viewer.task.approveReset({ ...T, reason: "r" })],
    ] as const) {
      const r = await expectNothingWritten(f.db, call);
      expect(r).toMatchObject({ code: "FORBIDDEN", data: { rule } });
    }
  });
});

describe("task.report in an enforce session", () => {
  async function taskAt(status: "pending" | "claimed" | "verified" | "blocked") {
    const f = setup();
    await sessionWithTask(f);
    if (status !== "pending") await f.as("developer").task.claim(T);
    if (status === "verified") await f.as("verifier").task.verify({ ...T, proofpack: PASSED });
    if (status === "blocked") await f.as("verifier").task.block({ ...T, failures: ["x"] });
    return f;
  }

  it.each([
    ["pending", "completed", "(from pending: start, claim)"],
    ["claimed", "completed", "(from claimed: verify, block)"],
    ["pending", "verified", "(from pending: start, claim)"],
    ["blocked", "completed", "(from blocked: request_reset, approve_reset, decline_reset)"],
    ["verified", "pending", "(from verified: complete)"],
    ["blocked", "verified", "(from blocked: request_reset, approve_reset, decline_reset)"],
  ] as const)("refuses %s → %s FORBIDDEN, naming the moves to use, and writes nothing", async (from, to, moves) => {
    const f = await taskAt(from);
    const r = await expectNothingWritten(f.db, () => f.as("orchestrator").task.report({ ...T, status: to }));
    expect(r.code).toBe("FORBIDDEN");
    expect(r.data.rule).toBe(`task.status_${from}_to_${to}`);
    expect(r.message).toContain(`${from} → ${to} is not a move ${moves}`);
    expect(storedTask(f.db).status).toBe(from);
  });

  it("refuses a legal edge that needs evidence, naming the move to use instead", async () => {
    const f = await taskAt("claimed");
    const r = await expectForbidden(f.as("orchestrator").task.report({ ...T, status: "verified" }), "task.status_claimed_to_verified");
    expect(r.message).toContain('use the "verify" move');
    const g = await taskAt("blocked");
    const r2 = await expectForbidden(g.as("orchestrator").task.report({ ...T, status: "pending" }), "task.status_blocked_to_pending");
    expect(r2.message).toContain('use the "approve-reset" move');
  });

  it("accepts a status that is a reportable move, and details without a status", async () => {
    const f = await taskAt("pending");
    const started = await f.as("orchestrator").task.report({ ...T, status: "in_progress", sourceStatus: "running", revisionCount: 2 });
    expect(started).toMatchObject({ status: "in_progress", sourceStatus: "running", revisionCount: 2, version: 2 });
    const detailed = await f.as("orchestrator").task.report({ ...T, title: "Renamed", mergeStatus: "pending" });
    expect(detailed).toMatchObject({ status: "in_progress", title: "Renamed", mergeStatus: "pending", version: 3 });
    const task = await f.as("viewer").task.get(T);
    expect(task.transitions.map((t) => [t.move, t.toStatus])).toEqual([
      ["create", "pending"],
      ["start", "in_progress"],
    ]);
    // The orchestrator may not claim through a report: claim is the agent's move.
    await expectForbidden(f.as("orchestrator").task.report({ ...T, status: "claimed" }), "task.claim_role");
  });
});

describe("task.report in an observe session", () => {
  it("accepts pending → completed, stores verification 'none' and emits unverified_completion", async () => {
    const f = setup();
    await sessionWithTask(f, "s1", "observe");
    const task = await f.as("orchestrator").task.report({ ...T, status: "completed", sourceStatus: "completed" });
    expect(task).toMatchObject({ status: "completed", verification: "none", completedBy: "orchestrator_1" });
    expect(storedTask(f.db)).toMatchObject({ status: "completed", verification: "none" });
    const [transition] = rows(f.db, "select move, from_status, to_status, verification from task_transitions where move = 'report'");
    expect(transition).toEqual({ move: "report", from_status: "pending", to_status: "completed", verification: "none" });
    const [event] = rows<{ type: string; data: string; entity: string }>(f.db, "select type, entity, data from events where type = 'unverified_completion'");
    expect(event?.entity).toBe("task");
    expect(JSON.parse(event!.data)).toMatchObject({ key: "t1", from: "pending", to: "completed", verification: "none" });
    expect(rows(f.db, "select tasks_completed, tasks_unverified from sessions")).toEqual([{ tasks_completed: 1, tasks_unverified: 1 }]);
    const check = await f.as("orchestrator").completion.check({ sessionId: "s1" });
    expect(check.reasons).toContain("1 task was completed without verification: t1");
  });

  it("records an on-machine report as task.reported without flagging it", async () => {
    const f = setup();
    await sessionWithTask(f, "s1", "observe");
    const task = await f.as("orchestrator").task.report({ ...T, status: "in_progress" });
    expect(task).toMatchObject({ status: "in_progress", verification: null });
    expect(eventTypes(f.db, "s1").at(-1)).toBe("task.reported");
  });
});

describe("task refusals: unknown ids, bad input, conflicts", () => {
  it("answers NOT_FOUND for an unknown session or task", async () => {
    const f = setup();
    await sessionWithTask(f);
    await expectNotFound(f.as("viewer").task.get({ sessionId: "s1", key: "nope" }));
    await expectNotFound(f.as("viewer").task.list({ sessionId: "nope" }));
    await expectNotFound(f.as("orchestrator").task.create({ sessionId: "nope", key: "t1", title: "x" }));
    await expectNotFound(f.as("developer").task.claim({ sessionId: "s1", key: "nope" }));
    await expectNotFound(f.as("orchestrator").task.report({ sessionId: "s1", key: "nope", status: "in_progress" }));
    const r = await expectNotFound(f.as("developer").task.start({ sessionId: "nope", key: "t1" }));
    expect(r.data.rule).toBe("task.not_found");
  });

  it("refuses a duplicate task key as a CONFLICT", async () => {
    const f = setup();
    await sessionWithTask(f);
    const r = await expectNothingWritten(f.db, () => f.as("orchestrator").task.create({ ...T, title: "again" }));
    expect(r).toMatchObject({ code: "CONFLICT", data: { rule: "task.exists" } });
  });

  it("refuses moves missing what they need BAD_REQUEST naming the field, writing nothing", async () => {
    const f = setup();
    await sessionWithTask(f);
    await f.as("developer").task.claim(T);
    const cases: [string, string, () => Promise<unknown>][] = [
      ["proofpack", "task.verify_requires_proofpack", () => f.as("verifier").task.verify(T)],
      ["proofpack.verdict", "task.proofpack_verdict_passed", () => f.as("verifier").task.verify({ ...T, proofpack: BLOCKED })],
      ["proofpack.checks", "task.proofpack_no_checks", () => f.as("verifier").task.verify({ ...T, proofpack: { verdict: "PASSED", checks: [] } })],
      [
        "proofpack.checks[0]",
        "task.proofpack_failed_check",
        () => f.as("verifier").task.verify({ ...T, proofpack: { verdict: "PASSED", checks: [{ name: "lint", passed: false }] } }),
      ],
      ["failures", "task.block_requires_failures", () => f.as("verifier").task.block(T)],
      ["failures[1]", "task.failure_empty", () => f.as("verifier").task.block({ ...T, failures: ["real", "  "] })],
    ];
    for (const [field, rule, call] of cases) {
      const before = count(f.db, "events");
      const r = await expectBadRequest(call(), field);
      expect(r.data).toMatchObject({ rule, field });
      expect(count(f.db, "events")).toBe(before);
    }
    await f.as("verifier").task.block({ ...T, failures: ["x"] });
    const r = await expectNothingWritten(f.db, () => f.as("orchestrator").task.requestReset(T));
    expect(r.code).toBe("BAD_REQUEST");
    expect(r.message).toContain("reason: a reason is required");
  });

  it("refuses malformed input and writes nothing", async () => {
    const f = setup();
    await sessionWithTask(f);
    await expectNothingWritten(f.db, () => f.as("orchestrator").task.create({ sessionId: "s1", key: "t2" } as never));
    await expectNothingWritten(f.db, () => f.as("orchestrator").task.create({ sessionId: "s1", key: "t2", title: "x", complexity: 11 }));
    await expectNothingWritten(f.db, () => f.as("developer").task.claim({ ...T, evidence: "not-a-list" as never }));
    await expectNothingWritten(f.db, () => f.as("developer").task.claim({ ...T, move: "verify" } as never));
    await expectNothingWritten(f.db, () => f.as("developer").task.start({ ...T, expectedVersion: 0 }));
  });

  it("refuses an out-of-range complexity BAD_REQUEST naming the field", async () => {
    const f = setup();
    await sessionWithTask(f);
    await expectBadRequest(f.as("orchestrator").task.create({ sessionId: "s1", key: "t2", title: "x", complexity: 11 }), "complexity");
  });

  it("refuses a move with a stale expectedVersion as a CONFLICT and writes nothing", async () => {
    const f = setup();
    await sessionWithTask(f);
    const { version } = await f.as("developer").task.claim(T);
    await f.as("orchestrator").task.report({ ...T, title: "renamed meanwhile" });
    const r = await expectNothingWritten(f.db, () => f.as("verifier").task.verify({ ...T, proofpack: PASSED, expectedVersion: version }));
    expect(r.code).toBe("CONFLICT");
    expect(r.data.rule).toBe("task.version_conflict");
    expect(r.message).toContain(`changed since version ${version}`);
    expect(storedTask(f.db).status).toBe("claimed");
  });

  it("lets exactly one of two concurrent judgements at the same version win; the other gets a CONFLICT", async () => {
    const f = setup();
    await sessionWithTask(f);
    const { version } = await f.as("developer").task.claim(T);
    const results = await Promise.allSettled([
      f.as("verifier").task.verify({ ...T, proofpack: PASSED, expectedVersion: version }),
      f.as("verifier2").task.block({ ...T, failures: ["flaky"], expectedVersion: version }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected")!;
    const r = await refusal(Promise.reject(rejected.reason));
    expect(r.code).toBe("CONFLICT");
    expect(count(f.db, "task_transitions", "move in ('verify', 'block')")).toBe(1);
  });
});
