import { describe, expect, it } from "vitest";
import { DomainError, ForbiddenTransitionError, ValidationError } from "./errors";
import { type GoalPlacement, assertBreakdownOrigin, assertContractReplaceable, assertGoalPlacement, goalSourceOf } from "./goal-lifecycle";

function refusal(call: () => unknown): { rule: string; field?: string } | null {
  try {
    call();
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return { rule: (error as DomainError).rule, ...(error instanceof ValidationError ? { field: error.field } : {}) };
  }
}

describe("where a goal may hang", () => {
  const parent = { id: 3, sessionId: "s1" };
  const base: GoalPlacement = { sessionId: "s1", source: "cli", parent: null, createdByAttemptId: undefined };
  const cases: [string, Partial<GoalPlacement>, { rule: string; field: string } | null][] = [
    ["a root goal", {}, null],
    ["a sub-goal in its parent's session", { parent }, null],
    ["a sub-goal of another session's goal", { parent: { id: 3, sessionId: "s2" } }, { rule: "goal.parent_other_session", field: "parentGoalId" }],
    ["a cli goal naming an origin attempt", { parent, createdByAttemptId: 9 }, { rule: "goal.created_by_requires_breakdown", field: "createdByAttemptId" }],
    ["a breakdown with parent and origin", { source: "breakdown", parent, createdByAttemptId: 9 }, null],
    ["a breakdown without a parent", { source: "breakdown", createdByAttemptId: 9 }, { rule: "goal.breakdown_requires_parent", field: "parentGoalId" }],
    ["a breakdown without an origin", { source: "breakdown", parent }, { rule: "goal.breakdown_requires_attempt", field: "createdByAttemptId" }],
    [
      "a breakdown under another session's goal",
      { source: "breakdown", parent: { id: 3, sessionId: "s2" }, createdByAttemptId: 9 },
      { rule: "goal.parent_other_session", field: "parentGoalId" },
    ],
  ];
  it.each(cases)("%s", (_name, over, expected) => {
    expect(refusal(() => assertGoalPlacement({ ...base, ...over }))).toEqual(expected);
  });

  it.each([
    ["a breakdown attempt on the parent", { id: 9, attemptType: "breakdown", goalId: 3 }, null],
    ["an implementation attempt", { id: 9, attemptType: "implementation", goalId: 3 }, "goal.created_by_not_breakdown"],
    ["a breakdown of another goal", { id: 9, attemptType: "breakdown", goalId: 4 }, "goal.created_by_other_goal"],
  ] as const)("origin: %s", (_name, attempt, rule) => {
    expect(refusal(() => assertBreakdownOrigin(attempt, 3))?.rule ?? null).toBe(rule);
  });

  it("a goal naming its origin is a breakdown unless it says otherwise", () => {
    expect(goalSourceOf(undefined, undefined)).toBe("cli");
    expect(goalSourceOf(undefined, 9)).toBe("breakdown");
    expect(goalSourceOf("cli", 9)).toBe("cli");
  });
});

describe("replacing a contract", () => {
  const contract = { goalId: 7, evaluated: false, criterionKeys: ["AC1", "AC2"] };
  it.each([
    ["with the same criteria", contract, ["AC1", "AC2"], null],
    ["adding a criterion", contract, ["AC1", "AC2", "AC3"], null],
    ["dropping a criterion", contract, ["AC1"], "goal_contract.criterion_removed"],
    ["after an evaluation", { ...contract, evaluated: true }, ["AC1", "AC2"], "goal_contract.immutable"],
    ["after an evaluation, even adding one", { ...contract, evaluated: true }, ["AC1", "AC2", "AC3"], "goal_contract.immutable"],
  ] as const)("%s", (_name, current, next, rule) => {
    expect(refusal(() => assertContractReplaceable(current, next))?.rule ?? null).toBe(rule);
  });

  it("names what must be kept", () => {
    expect(() => assertContractReplaceable(contract, ["AC2"])).toThrow(ForbiddenTransitionError);
    expect(() => assertContractReplaceable(contract, ["AC2"])).toThrow("keep AC1 in the new contract");
  });
});
