import { describe, expect, it } from "vitest";
import { type Actor, type Role, operatorActor } from "./actors";
import { ForbiddenTransitionError, RoleForbiddenError, ValidationError } from "./errors";
import {
  type MoveInput,
  type MoveOutcome,
  type Proofpack,
  type TaskMove,
  type TaskPatch,
  type TaskState,
  type TaskStatus,
  type Verification,
  LEGAL_EDGES,
  applyMove,
  isLegalEdge,
  observeReportedStatus,
  refuseReportedStatus,
} from "./task-machine";

// Written out by hand from DESIGN.md's table, not derived from MOVE_RULES, so the test can fail.
// `admin` is the local-mode operator ("acts as the machine's operator with admin rights"), so it may
// make every move; the claimant rule still applies to it.
const STATUSES: TaskStatus[] = ["pending", "in_progress", "claimed", "verified", "blocked", "completed"];
const ROLES: Role[] = ["viewer", "agent", "verifier", "orchestrator", "lead", "admin"];
const EXPECTED: Record<TaskMove, { from: TaskStatus[]; to: TaskStatus; roles: Role[] }> = {
  start: { from: ["pending"], to: "in_progress", roles: ["agent", "orchestrator", "admin"] },
  claim: { from: ["pending", "in_progress"], to: "claimed", roles: ["agent", "admin"] },
  verify: { from: ["claimed"], to: "verified", roles: ["verifier", "lead", "admin"] },
  block: { from: ["claimed"], to: "blocked", roles: ["verifier", "lead", "admin"] },
  complete: { from: ["verified"], to: "completed", roles: ["orchestrator", "lead", "admin"] },
  request_reset: { from: ["blocked"], to: "blocked", roles: ["orchestrator", "agent", "admin"] },
  approve_reset: { from: ["blocked"], to: "pending", roles: ["lead", "admin"] },
  // Issue 20: "decline a reset request (the task stays blocked; the request is closed with the reason)" — a human's call.
  decline_reset: { from: ["blocked"], to: "blocked", roles: ["lead", "admin"] },
};
const MOVES = Object.keys(EXPECTED) as TaskMove[];

const NOW = new Date("2025-10-24T22:05:00Z");
const PASSED: Proofpack = {
  verdict: "PASSED",
  checks: [
    { name: "unit_tests", passed: true },
    { name: "lint", passed: true },
  ],
};
const BLOCKED: Proofpack = { verdict: "BLOCKED", checks: [{ name: "unit_tests", passed: false, detail: "3 failing" }] };
const FAILURES = ["component_tests - 3 tests failing", "browser_screenshot - Screenshot missing"];

const VALID_INPUT: Record<TaskMove, MoveInput> = {
  start: {},
  claim: { evidence: ["artifacts/test-results.txt"] },
  verify: { proofpack: PASSED },
  block: { proofpack: BLOCKED, failures: FAILURES },
  complete: {},
  request_reset: { reason: "fixes are ready for another attempt" },
  approve_reset: { reason: "failures reviewed" },
  decline_reset: { reason: "the same tests still fail on main" },
};

function actor(role: Role, overrides: Partial<Actor> = {}): Actor {
  return { principalId: `token:${role}`, principalKind: "token", role, label: `${role}_1`, ...overrides };
}

function task(status: TaskStatus, overrides: Partial<TaskState> = {}): TaskState {
  const claimed = status === "claimed" || status === "verified" || status === "blocked" || status === "completed";
  return {
    status,
    claimedBy: claimed ? "developer_1" : null,
    claimedByPrincipal: claimed ? "token:developer" : null,
    resetRequested: false,
    ...overrides,
  };
}

function expectedPatch(move: TaskMove, by: Actor): TaskPatch {
  switch (move) {
    case "start":
      return {};
    case "claim":
      return { claimedBy: by.label, claimedByPrincipal: by.principalId, claimedAt: NOW, evidence: ["artifacts/test-results.txt"] };
    case "verify":
      return { verifiedBy: by.label, verifiedByPrincipal: by.principalId, verifiedAt: NOW, proofpack: PASSED, failures: null, verification: "verified" };
    case "block":
      return { blockedBy: by.label, blockedByPrincipal: by.principalId, blockedAt: NOW, proofpack: BLOCKED, failures: FAILURES };
    case "complete":
      return { completedBy: by.label, completedAt: NOW };
    case "request_reset":
      return { resetRequested: true, resetRequestedBy: by.label, resetRequestedAt: NOW, resetReason: "fixes are ready for another attempt" };
    case "approve_reset":
      return APPROVE_RESET_PATCH;
    case "decline_reset":
      return DECLINE_RESET_PATCH;
  }
}

const APPROVE_RESET_PATCH: TaskPatch = {
  claimedBy: null,
  claimedByPrincipal: null,
  claimedAt: null,
  evidence: null,
  verifiedBy: null,
  verifiedByPrincipal: null,
  verifiedAt: null,
  blockedBy: null,
  blockedByPrincipal: null,
  blockedAt: null,
  proofpack: null,
  failures: null,
  verification: null,
  resetRequested: false,
  resetRequestedBy: null,
  resetRequestedAt: null,
  resetReason: null,
  resetCount: "increment",
};

const DECLINE_RESET_PATCH: TaskPatch = { resetRequested: false, resetRequestedBy: null, resetRequestedAt: null, resetReason: null };

/** The state a move is tried on in the matrix: a decline needs a pending request to decline. */
function stateFor(status: TaskStatus, move: TaskMove): TaskState {
  return task(status, move === "decline_reset" ? { resetRequested: true } : {});
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal, but the call succeeded");
}

function expectValidation(fn: () => unknown, field: string, rule?: string): void {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).field).toBe(field);
  if (rule !== undefined) expect((error as ValidationError).rule).toBe(rule);
}

function expectRefusal(fn: () => unknown, kind: typeof ForbiddenTransitionError | typeof RoleForbiddenError, rule: string): void {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(kind);
  expect((error as ForbiddenTransitionError).rule).toBe(rule);
}

const MATRIX = STATUSES.flatMap((status) => MOVES.flatMap((move) => ROLES.map((role) => ({ status, move, role }))));

describe("applyMove: every status × move × role", () => {
  it("covers 6 statuses × 8 moves × 6 roles", () => {
    expect(MATRIX).toHaveLength(288);
  });

  it.each(MATRIX)("$move from $status as $role", ({ status, move, role }) => {
    const rule = EXPECTED[move];
    const by = actor(role);
    const attempt = () => applyMove(stateFor(status, move), move, by, VALID_INPUT[move], NOW);
    if (!rule.from.includes(status)) {
      // State is checked before role: even a role that may never make the move hears about the state.
      expectRefusal(attempt, ForbiddenTransitionError, `task.${move}_from_${status}`);
    } else if (!rule.roles.includes(role)) {
      expectRefusal(attempt, RoleForbiddenError, `task.${move}_role`);
    } else {
      const outcome = attempt();
      expect(outcome).toEqual<MoveOutcome>({
        move,
        from: status,
        to: rule.to,
        patch: expectedPatch(move, by),
        reason: move === "request_reset" || move === "approve_reset" || move === "decline_reset" ? VALID_INPUT[move].reason! : null,
      });
    }
  });
});

describe("LEGAL_EDGES", () => {
  it("is exactly the seven edges of 004", () => {
    const edges = LEGAL_EDGES.map(([from, to]) => `${from}->${to}`).sort();
    expect(edges).toEqual(
      [
        "pending->in_progress",
        "pending->claimed",
        "in_progress->claimed",
        "claimed->verified",
        "claimed->blocked",
        "verified->completed",
        "blocked->pending",
      ].sort(),
    );
  });

  it("isLegalEdge agrees with the list for every pair", () => {
    const legal = new Set(LEGAL_EDGES.map(([from, to]) => `${from}->${to}`));
    for (const from of STATUSES) {
      for (const to of STATUSES) expect(isLegalEdge(from, to), `${from}->${to}`).toBe(legal.has(`${from}->${to}`));
    }
  });
});

// 004's forbidden transitions, with the move that targets the forbidden status and the moves a refusal should offer instead.
const FORBIDDEN: { from: TaskStatus; to: TaskStatus; move: TaskMove; offered: string }[] = [
  { from: "pending", to: "completed", move: "complete", offered: "start, claim" },
  { from: "claimed", to: "completed", move: "complete", offered: "verify, block" },
  { from: "pending", to: "verified", move: "verify", offered: "start, claim" },
  { from: "blocked", to: "completed", move: "complete", offered: "request_reset, approve_reset, decline_reset" },
  { from: "blocked", to: "verified", move: "verify", offered: "request_reset, approve_reset, decline_reset" },
  { from: "verified", to: "pending", move: "approve_reset", offered: "complete" },
];

describe("the forbidden transitions of 004", () => {
  it.each(FORBIDDEN)("$from → $to is not a legal edge", ({ from, to }) => {
    expect(isLegalEdge(from, to)).toBe(false);
  });

  it.each(FORBIDDEN)("a raw $from → $to report is refused and names the moves that exist", ({ from, to, offered }) => {
    const error = refuseReportedStatus(from, to);
    expect(error).toBeInstanceOf(ForbiddenTransitionError);
    expect(error.rule).toBe(`task.status_${from}_to_${to}`);
    expect(error.message).toContain(`${from} → ${to} is not a move`);
    expect(error.message).toContain(`(from ${from}: ${offered})`);
  });

  it.each(FORBIDDEN)("applyMove refuses $move from $from, even for an admin", ({ from, move }) => {
    expectRefusal(() => applyMove(task(from), move, actor("admin"), VALID_INPUT[move], NOW), ForbiddenTransitionError, `task.${move}_from_${from}`);
  });

  it.each(FORBIDDEN)("no move by any role takes a task from $from to $to", ({ from, to }) => {
    for (const move of MOVES) {
      for (const role of ROLES) {
        let outcome: MoveOutcome | undefined;
        try {
          outcome = applyMove(task(from), move, actor(role), VALID_INPUT[move], NOW);
        } catch {
          continue;
        }
        expect(outcome.to, `${move} as ${role}`).not.toBe(to);
      }
    }
  });

  it.each([
    { from: "pending", to: "in_progress", move: "start" },
    { from: "in_progress", to: "claimed", move: "claim" },
    { from: "claimed", to: "verified", move: "verify" },
    { from: "claimed", to: "blocked", move: "block" },
    { from: "verified", to: "completed", move: "complete" },
    { from: "blocked", to: "pending", move: "approve-reset" },
  ] as const)("a raw $from → $to report in an enforce session names the $move move", ({ from, to, move }) => {
    const error = refuseReportedStatus(from, to);
    expect(error.rule).toBe(`task.status_${from}_to_${to}`);
    expect(error.message).toContain(`use the "${move}" move`);
  });
});

describe("never the claimant", () => {
  const claimedByToken = task("claimed", { claimedBy: "developer_1", claimedByPrincipal: "token:dev-1" });

  it.each(["verify", "block"] as const)("refuses to %s by the same agent label under a different principal", (move) => {
    const sameLabel = actor("verifier", { principalId: "token:verifier-9", label: "developer_1" });
    expectRefusal(() => applyMove(claimedByToken, move, sameLabel, VALID_INPUT[move], NOW), RoleForbiddenError, `task.claimant_cannot_${move}`);
  });

  it.each(["verify", "block"] as const)("refuses to %s by the same principal under a different label", (move) => {
    const samePrincipal = actor("lead", { principalId: "token:dev-1", label: "qa_expert" });
    expectRefusal(() => applyMove(claimedByToken, move, samePrincipal, VALID_INPUT[move], NOW), RoleForbiddenError, `task.claimant_cannot_${move}`);
  });

  it.each(["verify", "block"] as const)("refuses to %s by the same signed-in user with another label", (move) => {
    const claimedByUser = task("claimed", { claimedBy: "alice@example.com", claimedByPrincipal: "user:7" });
    const alice = actor("lead", { principalId: "user:7", principalKind: "user", label: "alice as reviewer" });
    expectRefusal(() => applyMove(claimedByUser, move, alice, VALID_INPUT[move], NOW), RoleForbiddenError, `task.claimant_cannot_${move}`);
  });

  it.each(["verify", "block"] as const)("lets a different principal with a different label %s", (move) => {
    const other = actor("verifier", { principalId: "token:verifier-9", label: "verification_agent" });
    expect(applyMove(claimedByToken, move, other, VALID_INPUT[move], NOW).to).toBe(EXPECTED[move].to);
  });

  it("stores no principal for the local operator, so the claim compares labels only", () => {
    const outcome = applyMove(task("in_progress"), "claim", operatorActor("developer_1"), {}, NOW);
    expect(outcome.patch.claimedBy).toBe("developer_1");
    expect(outcome.patch.claimedByPrincipal).toBeNull();
  });

  it.each(["verify", "block"] as const)("lets another agent on the same machine (operator) %s", (move) => {
    const claimedLocally = task("claimed", { claimedBy: "developer_1", claimedByPrincipal: null });
    const outcome = applyMove(claimedLocally, move, operatorActor("verification_agent"), VALID_INPUT[move], NOW);
    expect(outcome.to).toBe(EXPECTED[move].to);
    expect(outcome.patch).toMatchObject(
      move === "verify" ? { verifiedBy: "verification_agent", verifiedByPrincipal: null } : { blockedBy: "verification_agent", blockedByPrincipal: null },
    );
  });

  it.each(["verify", "block"] as const)("refuses the operator to %s under the claimant's label", (move) => {
    const claimedLocally = task("claimed", { claimedBy: "developer_1", claimedByPrincipal: null });
    expectRefusal(
      () => applyMove(claimedLocally, move, operatorActor("developer_1"), VALID_INPUT[move], NOW),
      RoleForbiddenError,
      `task.claimant_cannot_${move}`,
    );
  });

  it("never compares the operator's shared principal id, even if a row stored it", () => {
    // Every agent on a machine is "operator"; comparing that id would stop all local verification.
    const storedOperator = task("claimed", { claimedBy: "developer_1", claimedByPrincipal: "operator" });
    const outcome = applyMove(storedOperator, "verify", operatorActor("verification_agent"), VALID_INPUT.verify, NOW);
    expect(outcome.to).toBe("verified");
  });
});

describe("required inputs", () => {
  const claimed = task("claimed");
  const verifier = actor("verifier");

  it("verify needs a proofpack", () => {
    expectValidation(() => applyMove(claimed, "verify", verifier, {}, NOW), "proofpack", "task.verify_requires_proofpack");
  });

  it("verify needs the verdict PASSED", () => {
    expectValidation(() => applyMove(claimed, "verify", verifier, { proofpack: BLOCKED }, NOW), "proofpack.verdict", "task.proofpack_verdict_passed");
  });

  it("verify refuses a PASSED proofpack with a failed check, naming the check", () => {
    const proofpack: Proofpack = {
      verdict: "PASSED",
      checks: [
        { name: "lint", passed: true },
        { name: "unit_tests", passed: false },
      ],
    };
    expectValidation(() => applyMove(claimed, "verify", verifier, { proofpack }, NOW), "proofpack.checks[1]", "task.proofpack_failed_check");
  });

  it("verify refuses a PASSED proofpack that checked nothing", () => {
    expectValidation(
      () => applyMove(claimed, "verify", verifier, { proofpack: { verdict: "PASSED", checks: [] } }, NOW),
      "proofpack.checks",
      "task.proofpack_no_checks",
    );
  });

  it("verify refuses a check without a name", () => {
    const proofpack: Proofpack = { verdict: "PASSED", checks: [{ name: "  ", passed: true }] };
    expectValidation(() => applyMove(claimed, "verify", verifier, { proofpack }, NOW), "proofpack.checks[0].name", "task.proofpack_check_name");
  });

  it.each([
    { name: "no failures", failures: undefined, field: "failures" },
    { name: "an empty list", failures: [], field: "failures" },
    { name: "an empty failure", failures: ["component_tests - failing", "   "], field: "failures[1]" },
  ])("block refuses $name", ({ failures, field }) => {
    expectValidation(() => applyMove(claimed, "block", verifier, { proofpack: BLOCKED, failures }, NOW), field);
  });

  it("block needs the verdict BLOCKED when a proofpack is given", () => {
    expectValidation(
      () => applyMove(claimed, "block", verifier, { proofpack: PASSED, failures: FAILURES }, NOW),
      "proofpack.verdict",
      "task.proofpack_verdict_blocked",
    );
  });

  it("block trims the failures it stores", () => {
    const outcome = applyMove(claimed, "block", verifier, { proofpack: BLOCKED, failures: ["  lint failed  "] }, NOW);
    expect(outcome.patch.failures).toEqual(["lint failed"]);
  });

  it("claim refuses an empty evidence entry and trims the rest", () => {
    expectValidation(() => applyMove(task("pending"), "claim", actor("agent"), { evidence: ["a.txt", " "] }, NOW), "evidence[1]", "task.evidence_empty");
    expect(applyMove(task("pending"), "claim", actor("agent"), { evidence: [" a.txt "] }, NOW).patch.evidence).toEqual(["a.txt"]);
    expect(applyMove(task("pending"), "claim", actor("agent"), { evidence: [] }, NOW).patch.evidence).toBeNull();
  });

  it.each([
    { move: "request_reset", by: actor("orchestrator") },
    { move: "approve_reset", by: actor("lead") },
    { move: "decline_reset", by: actor("lead") },
  ] as const)("$move needs a reason", ({ move, by }) => {
    const blocked = stateFor("blocked", move);
    expectValidation(() => applyMove(blocked, move, by, {}, NOW), "reason", "task.reason_required");
    expectValidation(() => applyMove(blocked, move, by, { reason: "  \n " }, NOW), "reason", "task.reason_required");
    expectValidation(() => applyMove(blocked, move, by, { reason: "x".repeat(4001) }, NOW), "reason", "task.reason_too_long");
    expect(applyMove(blocked, move, by, { reason: "  fixed  " }, NOW).reason).toBe("fixed");
  });

  it("refuses a second reset request while one awaits approval", () => {
    const requested = task("blocked", { resetRequested: true });
    expectRefusal(
      () => applyMove(requested, "request_reset", actor("agent"), { reason: "again" }, NOW),
      ForbiddenTransitionError,
      "task.reset_already_requested",
    );
  });

  it("declines only a pending reset request: the task stays blocked and the request is cleared", () => {
    expectRefusal(() => applyMove(task("blocked"), "decline_reset", actor("lead"), { reason: "no" }, NOW), ForbiddenTransitionError, "task.no_reset_request");
    const outcome = applyMove(task("blocked", { resetRequested: true }), "decline_reset", actor("lead"), { reason: "still failing" }, NOW);
    expect(outcome).toMatchObject({ from: "blocked", to: "blocked", reason: "still failing", patch: DECLINE_RESET_PATCH });
    expectRefusal(
      () => applyMove(task("blocked", { resetRequested: true }), "decline_reset", actor("orchestrator"), { reason: "no" }, NOW),
      RoleForbiddenError,
      "task.decline_reset_role",
    );
  });

  it("approves a reset whether or not one was requested, clearing the failed attempt", () => {
    for (const resetRequested of [true, false]) {
      const outcome = applyMove(task("blocked", { resetRequested }), "approve_reset", actor("lead"), { reason: "reviewed" }, NOW);
      expect(outcome.to).toBe("pending");
      expect(outcome.patch).toEqual(APPROVE_RESET_PATCH);
    }
  });
});

describe("observeReportedStatus", () => {
  it.each([
    { from: "pending", to: "in_progress", verification: null },
    { from: "in_progress", to: "claimed", verification: null },
    { from: "pending", to: "claimed", verification: null },
    { from: "claimed", to: "blocked", verification: null },
    { from: "blocked", to: "pending", verification: null },
    { from: "verified", to: "completed", verification: "verified" },
    { from: "completed", to: "completed", verification: "verified" },
    { from: "completed", to: "completed", verification: "none" },
  ] as const)("keeps verification $verification on the machine's edge $from → $to", ({ from, to, verification }) => {
    expect(observeReportedStatus({ status: from, verification }, to)).toEqual({ to, verification, unverified: false, onMachine: true });
  });

  it.each([
    { from: "pending", to: "completed" },
    { from: "in_progress", to: "completed" },
    { from: "claimed", to: "completed" },
    { from: "blocked", to: "completed" },
    { from: "pending", to: "verified" },
    { from: "blocked", to: "verified" },
  ] as const)("records an off-machine $from → $to as an unverified completion", ({ from, to }) => {
    expect(observeReportedStatus({ status: from, verification: null }, to)).toEqual({ to, verification: "none", unverified: true, onMachine: false });
  });

  it("marks an off-machine report that is not a completion with verification none but not unverified", () => {
    expect(observeReportedStatus({ status: "verified", verification: "verified" }, "pending")).toEqual({
      to: "pending",
      verification: "none",
      unverified: false,
      onMachine: false,
    });
  });

  it("treats a reported claimed → verified as unverified: a report is never a verify move", () => {
    expect(observeReportedStatus({ status: "claimed", verification: null }, "verified")).toEqual({
      to: "verified",
      verification: "none",
      unverified: true,
      onMachine: true,
    });
  });

  it.each([null, "none"] as const)("treats completing a task whose verification is %s as unverified", (verification) => {
    expect(observeReportedStatus({ status: "verified", verification }, "completed")).toEqual({
      to: "completed",
      verification: "none",
      unverified: true,
      onMachine: true,
    });
  });

  it("follows an orchestrator that reports claimed, verified, completed to an unverified completion", () => {
    let state: { status: TaskStatus; verification: Verification | null } = { status: "pending", verification: null };
    for (const reported of ["in_progress", "claimed", "verified", "completed"] as const) {
      const observed = observeReportedStatus(state, reported);
      state = { status: observed.to, verification: observed.verification };
    }
    expect(state).toEqual({ status: "completed", verification: "none" });
  });
});

/** A row as the service would keep it: the machine's state plus the patched columns. */
type Row = TaskState & Omit<TaskPatch, "resetCount"> & { resetCount: number };

function run(row: Row, move: TaskMove, by: Actor, input: MoveInput = {}): Row {
  const { to, patch } = applyMove(row, move, by, input, NOW);
  const { resetCount, ...columns } = patch;
  return { ...row, ...columns, status: to, resetCount: row.resetCount + (resetCount === "increment" ? 1 : 0) };
}

describe("full lifecycles of 004", () => {
  const fresh: Row = { status: "pending", claimedBy: null, claimedByPrincipal: null, resetRequested: false, resetCount: 0 };
  const orchestrator = actor("orchestrator", { label: "workflow-orchestrator" });
  const developer = actor("agent", { principalId: "token:dev", label: "swiftui-developer" });
  const verifier = actor("verifier", { label: "verification-agent" });

  it("pending → in_progress → claimed → verified → completed", () => {
    let row = run(fresh, "start", orchestrator);
    expect(row.status).toBe("in_progress");
    row = run(row, "claim", developer, { evidence: ["screenshots/login.png"] });
    expect(row).toMatchObject({ status: "claimed", claimedBy: "swiftui-developer", claimedByPrincipal: "token:dev" });
    expectRefusal(() => run(row, "complete", orchestrator), ForbiddenTransitionError, "task.complete_from_claimed");
    row = run(row, "verify", verifier, { proofpack: PASSED });
    expect(row).toMatchObject({ status: "verified", verifiedBy: "verification-agent", verification: "verified" });
    row = run(row, "complete", orchestrator);
    expect(row).toMatchObject({ status: "completed", completedBy: "workflow-orchestrator", claimedBy: "swiftui-developer", verification: "verified" });
    for (const move of MOVES) expect(() => run(row, move, actor("admin"), VALID_INPUT[move])).toThrow(ForbiddenTransitionError);
  });

  it("claimed → blocked → reset requested → reset approved → pending → claimed → verified → completed", () => {
    let row = run(run(fresh, "claim", developer), "block", verifier, { proofpack: BLOCKED, failures: FAILURES });
    expect(row).toMatchObject({ status: "blocked", failures: FAILURES, blockedBy: "verification-agent", claimedBy: "swiftui-developer" });
    expectRefusal(() => run(row, "complete", orchestrator), ForbiddenTransitionError, "task.complete_from_blocked");
    expectRefusal(() => run(row, "verify", verifier, { proofpack: PASSED }), ForbiddenTransitionError, "task.verify_from_blocked");

    row = run(row, "request_reset", orchestrator, { reason: "fixes pushed" });
    expect(row).toMatchObject({ status: "blocked", resetRequested: true, resetReason: "fixes pushed" });
    expectRefusal(() => run(row, "approve_reset", orchestrator, { reason: "ok" }), RoleForbiddenError, "task.approve_reset_role");

    row = run(row, "approve_reset", actor("lead", { principalKind: "user", principalId: "user:1", label: "lead@example.com" }), {
      reason: "failures reviewed",
    });
    expect(row).toMatchObject({
      status: "pending",
      claimedBy: null,
      claimedByPrincipal: null,
      verifiedBy: null,
      proofpack: null,
      failures: null,
      resetRequested: false,
      resetCount: 1,
    });

    const retry = actor("agent", { principalId: "token:dev-2", label: "swiftui-developer-2" });
    row = run(row, "claim", retry);
    row = run(row, "verify", verifier, { proofpack: PASSED });
    row = run(row, "complete", orchestrator);
    expect(row).toMatchObject({ status: "completed", claimedBy: "swiftui-developer-2", verification: "verified", resetCount: 1 });
  });
});
