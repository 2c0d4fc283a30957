import { describe, expect, it } from "vitest";
import {
  type GoalAttemptState,
  type LatestVerdict,
  assertMayEvaluate,
  assertMayFinish,
  assertMayRecordToolCalls,
  assertMayRecordValidationRun,
  assertMayScore,
  assertMayStartAttempt,
} from "./attempt-lifecycle";
import { DomainError, ForbiddenTransitionError, RoleForbiddenError, ValidationError } from "./errors";

/** The rule a call refuses with, or null when it is allowed. */
function ruleOf(call: () => unknown): string | null {
  try {
    call();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).rule;
  }
}

const SUCCESS: LatestVerdict = { verdict: "SUCCESS", reason: "all criteria met", attemptNumber: 2 };
const PARTIAL: LatestVerdict = { verdict: "PARTIAL", reason: "2/3 criteria met", attemptNumber: 2 };
const BLOCKED: LatestVerdict = { verdict: "BLOCKED", reason: "max attempts (3) reached", attemptNumber: 3 };

describe("starting an attempt", () => {
  const goal = (over: Partial<GoalAttemptState>): GoalAttemptState => ({ goalId: 7, latest: undefined, maxAttempts: null, implementationAttempts: 0, ...over });
  const cases: [string, Partial<GoalAttemptState>, "implementation" | "breakdown", string | null][] = [
    ["a fresh goal", {}, "implementation", null],
    ["a goal with no contract and many attempts", { implementationAttempts: 40 }, "implementation", null],
    ["a PARTIAL goal under its limit", { latest: PARTIAL, maxAttempts: 3, implementationAttempts: 2 }, "implementation", null],
    ["a goal at its limit", { latest: PARTIAL, maxAttempts: 3, implementationAttempts: 3 }, "implementation", "attempt.limit_reached"],
    ["a goal past its limit", { maxAttempts: 1, implementationAttempts: 2 }, "implementation", "attempt.limit_reached"],
    ["a goal that succeeded", { latest: SUCCESS }, "implementation", "attempt.goal_succeeded"],
    ["a BLOCKED goal", { latest: BLOCKED, maxAttempts: 3, implementationAttempts: 3 }, "implementation", "attempt.goal_blocked"],
    ["a breakdown of a BLOCKED goal", { latest: BLOCKED, maxAttempts: 3, implementationAttempts: 3 }, "breakdown", null],
    ["a breakdown of a goal that succeeded", { latest: SUCCESS }, "breakdown", null],
    ["a breakdown at the limit", { maxAttempts: 1, implementationAttempts: 1 }, "breakdown", null],
  ];
  it.each(cases)("%s (%s)", (_name, over, type, rule) => {
    expect(ruleOf(() => assertMayStartAttempt(goal(over), type))).toBe(rule);
  });

  it("says what to do next", () => {
    expect(() => assertMayStartAttempt(goal({ latest: BLOCKED }), "implementation")).toThrow(/BLOCKED \(max attempts \(3\) reached\): break it down/);
    expect(() => assertMayStartAttempt(goal({ maxAttempts: 3, implementationAttempts: 3 }), "implementation")).toThrow(
      "already has 3 of its 3 allowed attempts",
    );
  });
});

describe("finishing and recording", () => {
  it.each([
    ["running", null, null, null],
    ["finished", "completed", "attempt.already_finished", "attempt.already_finished"],
    ["errored", "error", "attempt.already_finished", "attempt.already_finished"],
  ] as const)("a %s attempt: finish → %s, tool calls → %s", (_name, resultStatus, finishRule, callsRule) => {
    expect(ruleOf(() => assertMayFinish({ id: 1, resultStatus }))).toBe(finishRule);
    expect(ruleOf(() => assertMayRecordToolCalls({ id: 1, resultStatus }))).toBe(callsRule);
  });

  it("names the result that is never replaced", () => {
    expect(() => assertMayFinish({ id: 4, resultStatus: "timeout" })).toThrow("attempt 4 already finished (timeout)");
  });

  it.each([
    ["a finished attempt, its goal's step", { id: 2 }, 7, null],
    ["an unfinished attempt", undefined, 7, "validation_run.attempt_unfinished"],
    ["another goal's step", { id: 2 }, 8, "validation_run.step_other_goal"],
    ["another goal's step on an unfinished attempt (the step is named first)", undefined, 8, "validation_run.step_other_goal"],
  ] as const)("validation run: %s", (_name, result, stepGoal, rule) => {
    expect(ruleOf(() => assertMayRecordValidationRun({ id: 1, goalId: 7 }, result, { id: 3, goalId: stepGoal }))).toBe(rule);
  });

  it("a step of another goal is a bad input naming the field", () => {
    try {
      assertMayRecordValidationRun({ id: 1, goalId: 7 }, { id: 2 }, { id: 3, goalId: 8 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe("validationStepId");
    }
  });
});

describe("scoring", () => {
  it.each([
    ["a finished attempt by someone else", "completed", false, null],
    ["an unfinished attempt", null, false, "trust_score.attempt_unfinished"],
    ["the attempt's own recorder", "completed", true, "trust_score.own_attempt"],
  ] as const)("%s", (_name, resultStatus, recordedTheAttempt, rule) => {
    expect(ruleOf(() => assertMayScore({ id: 1, resultStatus }, { label: "qa_1", recordedTheAttempt }))).toBe(rule);
  });

  it("refuses the recorder as a matter of who is acting", () => {
    expect(() => assertMayScore({ id: 1, resultStatus: "completed" }, { label: "developer_1", recordedTheAttempt: true })).toThrow(RoleForbiddenError);
    expect(() => assertMayScore({ id: 1, resultStatus: "completed" }, { label: "developer_1", recordedTheAttempt: true })).toThrow(
      "developer_1 recorded attempt 1",
    );
  });
});

describe("evaluating", () => {
  const result = { status: "completed" };
  const trust = { score: 90 };
  const base = {
    id: 5,
    goalId: 7,
    attemptNumber: 2 as number | null,
    result: result as typeof result | undefined,
    trust: trust as typeof trust | undefined,
    latest: undefined as LatestVerdict | undefined,
  };
  const cases: [string, Partial<typeof base>, string | null][] = [
    ["a finished, scored attempt", {}, null],
    ["after a PARTIAL of an earlier attempt", { latest: { ...PARTIAL, attemptNumber: 1 } }, null],
    ["the same attempt again (a new trust score)", { latest: PARTIAL }, null],
    ["a breakdown attempt", { attemptNumber: null }, "goal_gate.breakdown_attempt"],
    ["an unfinished attempt", { result: undefined }, "goal_gate.attempt_unfinished"],
    ["an attempt without a trust score", { trust: undefined }, "goal_gate.trust_score_required"],
    ["a goal that succeeded", { latest: SUCCESS }, "goal_gate.goal_succeeded"],
    ["a BLOCKED goal", { latest: BLOCKED }, "goal_gate.goal_blocked"],
    ["an attempt a later one superseded", { attemptNumber: 1, latest: PARTIAL }, "goal_gate.attempt_superseded"],
    ["a breakdown attempt without result (named as a breakdown first)", { attemptNumber: null, result: undefined }, "goal_gate.breakdown_attempt"],
  ];
  it.each(cases)("%s", (_name, over, rule) => {
    expect(ruleOf(() => assertMayEvaluate({ ...base, ...over }))).toBe(rule);
  });

  it("hands back what the judgement reads", () => {
    expect(assertMayEvaluate(base)).toEqual({ attemptNumber: 2, result, trust });
  });

  it("refusals are moves the state does not allow", () => {
    expect(() => assertMayEvaluate({ ...base, latest: SUCCESS })).toThrow(ForbiddenTransitionError);
    expect(() => assertMayEvaluate({ ...base, latest: SUCCESS })).toThrow("goal 7 already succeeded (attempt 2)");
  });
});
