import { describe, expect, it } from "vitest";
import { type CompletionInput, type GateGoal, type GateTask, evaluateCompletion } from "./completion-gate";
import { type CriterionState } from "./criteria";
import { type TaskStatus } from "./task-machine";

function criterion(text: string, overrides: Partial<CriterionState> = {}): CriterionState {
  return { criterion: text, status: "met", actual: null, evidence: "artifacts/report.txt", requiredForCompletion: true, verifierStatus: null, ...overrides };
}

function task(key: string, status: TaskStatus = "completed", verification: GateTask["verification"] = "verified"): GateTask {
  return { key, title: `Task ${key}`, status, verification };
}

function goal(id: number, verdict: GateGoal["verdict"]): GateGoal {
  return { id, goalText: `Goal ${id}`, verdict };
}

const MET = [criterion("All tests passing"), criterion("Coverage >70%"), criterion("Login works")];
const DONE = [task("group_a"), task("group_b")];

function gate(input: Partial<CompletionInput>) {
  return evaluateCompletion({ criteria: MET, tasks: DONE, contractGoals: [], ...input });
}

describe("000 Test 6: BAZINGA rejection", () => {
  it('rejects 3 required criteria with 2 met and 1 pending: "Only 2/3 criteria met"', () => {
    const verdict = gate({
      criteria: [criterion("All tests passing"), criterion("Coverage >70%"), criterion("Email tests passing", { status: "pending", evidence: null })],
    });
    expect(verdict.accepted).toBe(false);
    expect(verdict.reasons).toEqual(["Only 2/3 criteria met", 'Criterion "Email tests passing" is not met: pending']);
    expect(verdict.metCount).toBe(2);
    expect(verdict.totalCount).toBe(3);
  });
});

describe("evaluateCompletion", () => {
  it("accepts when every required criterion is met and every task completed and verified", () => {
    expect(gate({})).toEqual({ accepted: true, reasons: [], metCount: 3, totalCount: 3, externallyBlocked: 0, discrepancies: [] });
  });

  it("accepts a session whose contract goals all passed both gates", () => {
    expect(gate({ contractGoals: [goal(1, "SUCCESS"), goal(2, "SUCCESS")] }).accepted).toBe(true);
  });

  it("does not count optional criteria, met or not", () => {
    const optional = [
      criterion("Docs updated", { status: "pending", requiredForCompletion: false }),
      criterion("Nice to have", { status: "failed", requiredForCompletion: false }),
    ];
    const verdict = gate({ criteria: [...MET, ...optional] });
    expect(verdict).toMatchObject({ accepted: true, metCount: 3, totalCount: 3 });
    const optionalMet = gate({ criteria: [criterion("A"), criterion("B", { status: "pending" }), criterion("C", { requiredForCompletion: false })] });
    expect(optionalMet).toMatchObject({ accepted: false, metCount: 1, totalCount: 2 });
    expect(optionalMet.reasons[0]).toBe("Only 1/2 criteria met");
  });

  it("counts a criterion blocked with evidence of an external blocker as satisfied (Path B)", () => {
    const blocked = criterion("Email tests passing", {
      status: "blocked",
      actual: "Cannot test - SendGrid down",
      evidence: "https://status.sendgrid.com - outage",
    });
    const verdict = gate({ criteria: [...MET, blocked] });
    expect(verdict).toMatchObject({ accepted: true, metCount: 4, totalCount: 4, externallyBlocked: 1 });
  });

  it("does not count a criterion blocked without evidence", () => {
    const blocked = criterion("Email tests passing", { status: "blocked", evidence: null });
    const verdict = gate({ criteria: [...MET, blocked] });
    expect(verdict).toMatchObject({ accepted: false, metCount: 3, totalCount: 4, externallyBlocked: 0 });
    expect(verdict.reasons).toEqual([
      "Only 3/4 criteria met",
      'Criterion "Email tests passing" is not met: blocked with no evidence naming an external blocker',
    ]);
  });

  it('trusts the verifier: "PM says met, validator says failed" is rejected with the discrepancy', () => {
    const disputed = criterion("All tests passing", { status: "met", verifierStatus: "failed", verifierEvidence: "3 tests failing" });
    const verdict = gate({ criteria: [disputed, ...MET.slice(1)] });
    expect(verdict).toMatchObject({ accepted: false, metCount: 2, totalCount: 3 });
    expect(verdict.reasons).toEqual(["Only 2/3 criteria met", 'Criterion "All tests passing" is not met: claimed met but the verifier found failed']);
    expect(verdict.discrepancies).toEqual(['"All tests passing": claimed met, verifier found failed']);
  });

  it("accepts a PM pending that the verifier found met, and still lists the discrepancy", () => {
    const verdict = gate({ criteria: [criterion("All tests passing", { status: "pending", verifierStatus: "met" }), ...MET.slice(1)] });
    expect(verdict.accepted).toBe(true);
    expect(verdict.discrepancies).toEqual(['"All tests passing": claimed pending, verifier found met']);
  });

  it.each([
    { status: "pending", reason: "1 task is pending: group_c" },
    { status: "in_progress", reason: "1 task is in progress: group_c" },
    { status: "claimed", reason: "1 task is claimed: group_c" },
    { status: "verified", reason: "1 task is verified: group_c" },
    { status: "blocked", reason: "1 task is blocked: group_c" },
  ] as const)("rejects a task that is $status", ({ status, reason }) => {
    const verdict = gate({ tasks: [...DONE, task("group_c", status, status === "verified" ? "verified" : null)] });
    expect(verdict.accepted).toBe(false);
    expect(verdict.reasons).toEqual([reason]);
  });

  it("groups several tasks in one status and shortens long lists", () => {
    const claimed = Array.from({ length: 12 }, (_, i) => task(`t${i + 1}`, "claimed", null));
    const verdict = gate({ tasks: claimed });
    expect(verdict.reasons).toEqual(["12 tasks are claimed: t1, t2, t3, t4, t5, t6, t7, t8, t9, t10 and 2 more"]);
  });

  it("rejects a task completed without verification (observe mode, imports)", () => {
    const verdict = gate({ tasks: [...DONE, task("group_c", "completed", "none")] });
    expect(verdict.accepted).toBe(false);
    expect(verdict.reasons).toEqual(["1 task was completed without verification: group_c"]);
  });

  it("treats a completed task with no verification recorded as unverified too", () => {
    const verdict = gate({ tasks: [task("group_a", "completed", null), task("group_b", "completed", "none")] });
    expect(verdict.reasons).toEqual(["2 tasks were completed without verification: group_a, group_b"]);
  });

  it.each(["PARTIAL", "BLOCKED", null] as const)("rejects a contract goal whose verdict is %s", (verdict) => {
    const result = gate({ contractGoals: [goal(1, "SUCCESS"), goal(2, verdict)] });
    expect(result.accepted).toBe(false);
    expect(result.reasons).toEqual([`Goal "Goal 2" has not passed both gates (latest verdict: ${verdict ?? "never evaluated"})`]);
  });

  it("rejects a session with no criteria at all", () => {
    const verdict = gate({ criteria: [] });
    expect(verdict).toMatchObject({ accepted: false, metCount: 0, totalCount: 0 });
    expect(verdict.reasons).toEqual(["No required success criteria recorded: save the session's criteria before claiming completion"]);
  });

  it("rejects a session whose criteria are all optional", () => {
    const verdict = gate({ criteria: [criterion("Docs updated", { requiredForCompletion: false })] });
    expect(verdict.accepted).toBe(false);
    expect(verdict.reasons[0]).toMatch(/^No required success criteria recorded/);
  });

  it("lists every failing check at once", () => {
    const verdict = evaluateCompletion({
      criteria: [
        criterion("All tests passing"),
        criterion("Coverage >70%", { status: "failed", evidence: null }),
        criterion("Email tests passing", { status: "blocked", evidence: null }),
        criterion("Build green", { status: "met", verifierStatus: "failed" }),
      ],
      tasks: [task("a"), task("b", "pending", null), task("c", "claimed", null), task("d", "blocked", null), task("e", "completed", "none")],
      contractGoals: [goal(1, "PARTIAL"), goal(2, "SUCCESS")],
    });
    expect(verdict).toMatchObject({ accepted: false, metCount: 1, totalCount: 4 });
    expect(verdict.reasons).toEqual([
      "Only 1/4 criteria met",
      'Criterion "Coverage >70%" is not met: failed',
      'Criterion "Email tests passing" is not met: blocked with no evidence naming an external blocker',
      'Criterion "Build green" is not met: claimed met but the verifier found failed',
      "1 task is pending: b",
      "1 task is claimed: c",
      "1 task is blocked: d",
      "1 task was completed without verification: e",
      'Goal "Goal 1" has not passed both gates (latest verdict: PARTIAL)',
    ]);
  });
});
