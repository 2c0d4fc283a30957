import { describe, expect, it } from "vitest";
import { evaluateCompletion } from "./completion-gate";
import { type LinkedVerdict, decideStop, fixFor, shellQuote } from "./stop-hold";

const rejected: LinkedVerdict = {
  sessionId: "bazinga_1",
  accepted: false,
  reasons: ["Only 0/1 criteria met", 'Criterion "All tests passing" is not met: pending'],
};
const accepted: LinkedVerdict = { sessionId: "bazinga_2", accepted: true, reasons: [] };

describe("decideStop", () => {
  it.each([
    // [what, verdicts, stop_hook_active, held so far, max, expected kind, expected block or cause]
    ["no linked active session", [], false, 0, 3, "allow", undefined],
    ["every gate accepts", [accepted], false, 0, 3, "allow", undefined],
    ["a fresh stop with a rejecting gate", [rejected], false, 0, 3, "hold", 1],
    ["a fresh stop forgets the count of an earlier turn", [rejected], false, 3, 3, "hold", 1],
    ["our own continuation keeps counting", [rejected], true, 1, 3, "hold", 2],
    ["the last hold before the cap", [rejected], true, 2, 3, "hold", 3],
    ["the cap reached", [rejected], true, 3, 3, "unverified", "max_blocks"],
    ["a cap of one", [rejected], true, 1, 1, "unverified", "max_blocks"],
    ["another hook's continuation (stop_hook_active, no hold of ours)", [rejected], true, 0, 3, "unverified", "stop_hook_active"],
    ["one rejecting among accepted", [accepted, rejected], false, 0, 3, "hold", 1],
  ] as const)("%s", (_, verdicts, stopHookActive, consecutiveBlocks, maxBlocks, kind, detail) => {
    const decision = decideStop({ verdicts, stopHookActive, consecutiveBlocks, maxBlocks });
    expect(decision.kind).toBe(kind);
    if (decision.kind === "hold") expect(decision.block).toBe(detail);
    if (decision.kind === "unverified") expect(decision.cause).toBe(detail);
  });

  it("releases the count when a stop goes through after held ones", () => {
    expect(decideStop({ verdicts: [accepted], stopHookActive: true, consecutiveBlocks: 2, maxBlocks: 3 })).toEqual({ kind: "allow", release: true });
    expect(decideStop({ verdicts: [], stopHookActive: false, consecutiveBlocks: 0, maxBlocks: 3 })).toEqual({ kind: "allow", release: false });
  });

  it("tells the agent each failed check of each rejecting session, with its fix, and never an accepted one", () => {
    const decision = decideStop({ verdicts: [accepted, rejected], stopHookActive: false, consecutiveBlocks: 0, maxBlocks: 3 });
    if (decision.kind !== "hold") throw new Error("expected a hold");
    expect(decision.held.map((h) => h.sessionId)).toEqual(["bazinga_1"]);
    expect(decision.reason).toContain("(1 of at most 3 in a row)");
    expect(decision.reason).toContain('- Criterion "All tests passing" is not met: pending');
    expect(decision.reason).toContain("fix: meet it, then: proofgate update-success-criterion bazinga_1 'All tests passing' --status met");
    expect(decision.reason).toContain("update_success_criterion");
    expect(decision.reason).not.toContain("bazinga_2");
  });
});

describe("fixFor, on the completion gate's own reasons", () => {
  const gate = evaluateCompletion({
    criteria: [
      {
        criterion: "All tests passing",
        status: "pending",
        actual: null,
        evidence: null,
        requiredForCompletion: true,
        verifierStatus: null,
        verifierActual: null,
        verifierEvidence: null,
      },
      {
        criterion: "Coverage ≥ 80%",
        status: "met",
        actual: "85",
        evidence: "x",
        requiredForCompletion: true,
        verifierStatus: "failed",
        verifierActual: "60",
        verifierEvidence: "y",
      },
      {
        criterion: "Deploy to staging",
        status: "blocked",
        actual: null,
        evidence: null,
        requiredForCompletion: true,
        verifierStatus: null,
        verifierActual: null,
        verifierEvidence: null,
      },
    ],
    tasks: [
      { key: "group_a", title: "A", status: "pending", verification: null },
      { key: "group_b", title: "B", status: "claimed", verification: null },
      { key: "group_c", title: "C", status: "verified", verification: "verified" },
      { key: "group_d", title: "D", status: "blocked", verification: null },
      { key: "group_e", title: "E", status: "completed", verification: "none" },
    ],
    contractGoals: [{ id: 1, goalText: "Accuracy", verdict: "PARTIAL" }],
  });

  it.each([
    ['Criterion "All tests passing"', "proofgate update-success-criterion s1 'All tests passing' --status met"],
    ['Criterion "Coverage ≥ 80%"', "proofgate verify-success-criterion s1 'Coverage ≥ 80%' --status met"],
    ['Criterion "Deploy to staging"', "--status blocked --evidence '<the external blocker>'"],
    ["1 task is pending", "proofgate claim s1 group_a --evidence"],
    ["1 task is claimed", "proofgate verify s1 group_b --check <name>=pass --agent-id <verifier>"],
    ["1 task is verified", "proofgate complete s1 group_c"],
    ["1 task is blocked", "proofgate request-reset s1 group_d"],
    ["1 task was completed without verification", "a lead reviews these tasks"],
    ['Goal "Accuracy"', "proofgate evaluate-goal"],
  ])("%s → %s", (prefix, fix) => {
    const reason = gate.reasons.find((r) => r.startsWith(prefix));
    expect(reason, `the gate gives a reason starting ${prefix}`).toBeDefined();
    expect(fixFor("s1", reason!)).toContain(fix);
  });

  it("has a fix for a session with no criteria, none for a summary line, and a placeholder for several tasks", () => {
    const empty = evaluateCompletion({
      criteria: [],
      tasks: [
        { key: "a", title: "", status: "pending", verification: null },
        { key: "b", title: "", status: "pending", verification: null },
      ],
      contractGoals: [],
    });
    expect(fixFor("s1", empty.reasons[0]!)).toContain("proofgate save-success-criteria s1");
    expect(fixFor("s1", empty.reasons[1]!)).toContain("proofgate claim s1 <task>");
    expect(fixFor("s1", "Only 0/3 criteria met")).toBeNull();
  });

  it("quotes for a shell", () => {
    expect(shellQuote("bazinga_20250112")).toBe("bazinga_20250112");
    expect(shellQuote("it's done; rm -rf /")).toBe(`'it'\\''s done; rm -rf /'`);
  });
});
