import { describe, expect, it } from "vitest";
import { type Actor, type Role, operatorActor } from "./actors";
import {
  type CriterionInput,
  type CriterionState,
  type CriterionStatus,
  MAX_CRITERION_LENGTH,
  MAX_CRITERION_TEXT_FIELD,
  effectiveStatus,
  hasDiscrepancy,
  isCriterionStatus,
  isExternallyBlocked,
  validateCriteriaList,
} from "./criteria";
import { RoleForbiddenError, ValidationError } from "./errors";
import { authorize } from "./permissions";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal, but the call succeeded");
}

function expectValidation(fn: () => unknown, field: string, rule: string): void {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(ValidationError);
  expect((error as ValidationError).field).toBe(field);
  expect((error as ValidationError).rule).toBe(rule);
}

function criterion(overrides: Partial<CriterionState> = {}): CriterionState {
  return {
    criterion: "All tests passing",
    status: "pending",
    actual: null,
    evidence: null,
    requiredForCompletion: true,
    verifierStatus: null,
    ...overrides,
  };
}

describe("validateCriteriaList", () => {
  it("accepts a list and trims the criterion text", () => {
    const saved = validateCriteriaList([
      { criterion: "  All tests passing  ", status: "pending" },
      { criterion: "Coverage >70%", actual: "87.3%", evidence: "coverage.json", requiredForCompletion: false },
    ]);
    expect(saved).toEqual([
      { criterion: "All tests passing", status: "pending", actual: null, evidence: null, supersedes: null },
      { criterion: "Coverage >70%", actual: "87.3%", evidence: "coverage.json", requiredForCompletion: false, supersedes: null },
    ]);
  });

  it("refuses an empty list", () => {
    expectValidation(() => validateCriteriaList([]), "criteria", "criteria.empty_list");
  });

  it.each(["", "   ", "\n\t"])("refuses an empty or whitespace criterion %j, naming its index", (text) => {
    expectValidation(() => validateCriteriaList([{ criterion: "Coverage >70%" }, { criterion: text }]), "criteria[1].criterion", "text.required");
  });

  it("refuses a criterion that is not a string at all", () => {
    const item = { criterion: null } as unknown as CriterionInput;
    expectValidation(() => validateCriteriaList([item]), "criteria[0].criterion", "text.required");
  });

  it("refuses the same criterion twice in one list, also after trimming", () => {
    expectValidation(
      () => validateCriteriaList([{ criterion: "All tests passing" }, { criterion: "Coverage >70%" }, { criterion: " All tests passing " }]),
      "criteria[2].criterion",
      "criteria.duplicate_in_list",
    );
  });

  it("keeps criteria that differ only in case apart (the text is the identity)", () => {
    expect(validateCriteriaList([{ criterion: "All tests passing" }, { criterion: "all tests passing" }])).toHaveLength(2);
  });

  it("refuses a criterion longer than the limit, and accepts one at the limit", () => {
    expectValidation(() => validateCriteriaList([{ criterion: "x".repeat(MAX_CRITERION_LENGTH + 1) }]), "criteria[0].criterion", "text.too_long");
    expect(validateCriteriaList([{ criterion: "x".repeat(MAX_CRITERION_LENGTH) }])).toHaveLength(1);
  });

  it.each(["actual", "evidence"] as const)("refuses a too long %s", (field) => {
    const item: CriterionInput = { criterion: "All tests passing", [field]: "y".repeat(MAX_CRITERION_TEXT_FIELD + 1) };
    expectValidation(() => validateCriteriaList([item]), `criteria[0].${field}`, "text.too_long");
  });

  it.each(["done", "MET", "passed", ""])("refuses the status %j", (status) => {
    const item = { criterion: "All tests passing", status } as unknown as CriterionInput;
    expectValidation(() => validateCriteriaList([item]), "criteria[0].status", "criteria.status_enum");
  });

  it.each(["pending", "met", "blocked", "failed"] as const)("accepts the status %s", (status) => {
    expect(validateCriteriaList([{ criterion: "All tests passing", status }])[0]?.status).toBe(status);
    expect(isCriterionStatus(status)).toBe(true);
  });

  it("records the criterion a changed goal supersedes, trimmed", () => {
    const [saved] = validateCriteriaList([{ criterion: "ALL tests passing", supersedes: " 50 tests passing " }]);
    expect(saved?.supersedes).toBe("50 tests passing");
  });

  it.each([
    { name: "empty", supersedes: "  ", rule: "text.required" },
    { name: "too long", supersedes: "z".repeat(MAX_CRITERION_LENGTH + 1), rule: "text.too_long" },
    { name: "itself", supersedes: "ALL tests passing ", rule: "criteria.supersedes_self" },
  ])("refuses a supersedes that is $name", ({ supersedes, rule }) => {
    expectValidation(() => validateCriteriaList([{ criterion: "ALL tests passing", supersedes }]), "criteria[0].supersedes", rule);
  });
});

describe("effectiveStatus and hasDiscrepancy: the verifier over the PM", () => {
  const STATUSES: CriterionStatus[] = ["pending", "met", "blocked", "failed"];
  const pairs = STATUSES.flatMap((status) => [null, ...STATUSES].map((verifierStatus) => ({ status, verifierStatus })));

  it.each(pairs)("PM $status, verifier $verifierStatus", ({ status, verifierStatus }) => {
    const c = criterion({ status, verifierStatus });
    expect(effectiveStatus(c)).toBe(verifierStatus === null ? status : verifierStatus);
    expect(hasDiscrepancy(c)).toBe(verifierStatus !== null && verifierStatus !== status);
  });

  it('"PM says met, validator says failed" is failed, with a discrepancy', () => {
    const c = criterion({ status: "met", verifierStatus: "failed" });
    expect(effectiveStatus(c)).toBe("failed");
    expect(hasDiscrepancy(c)).toBe(true);
  });
});

describe("isExternallyBlocked (Path B)", () => {
  const outage = "https://status.sendgrid.com - Service outage 2024-11-24 14:00 UTC";

  it.each([
    { name: "PM blocked with evidence", c: { status: "blocked", evidence: outage }, expected: true },
    { name: "PM blocked without evidence", c: { status: "blocked", evidence: null }, expected: false },
    { name: "PM blocked with blank evidence", c: { status: "blocked", evidence: "   " }, expected: false },
    { name: "PM met with evidence", c: { status: "met", evidence: outage }, expected: false },
    { name: "PM pending", c: { status: "pending", evidence: outage }, expected: false },
    { name: "verifier blocked with its own evidence", c: { status: "met", verifierStatus: "blocked", verifierEvidence: outage }, expected: true },
    { name: "PM and verifier blocked, only the PM named the blocker", c: { status: "blocked", evidence: outage, verifierStatus: "blocked" }, expected: true },
    {
      name: "verifier blocked without evidence over a PM met whose evidence is a test report",
      c: { status: "met", evidence: "artifacts/test-results.txt", verifierStatus: "blocked" },
      expected: false,
    },
    {
      name: "verifier blocked with blank evidence",
      c: { status: "blocked", evidence: outage, verifierStatus: "blocked", verifierEvidence: " " },
      expected: false,
    },
    { name: "PM blocked with evidence, verifier found failed", c: { status: "blocked", evidence: outage, verifierStatus: "failed" }, expected: false },
    { name: "PM blocked with evidence, verifier found met", c: { status: "blocked", evidence: outage, verifierStatus: "met" }, expected: false },
  ] satisfies { name: string; c: Partial<CriterionState>; expected: boolean }[])("$name → $expected", ({ c, expected }) => {
    expect(isExternallyBlocked(criterion(c))).toBe(expected);
  });
});

describe("who may touch criteria", () => {
  const ROLES: Role[] = ["viewer", "agent", "verifier", "orchestrator", "lead", "admin"];
  // Literal, from DESIGN.md: the PM side reports, verifiers record findings, only a lead changes the required flag.
  const MAY: Record<Role, { report: boolean; verify: boolean; requiredFlag: boolean }> = {
    viewer: { report: false, verify: false, requiredFlag: false },
    agent: { report: true, verify: false, requiredFlag: false },
    verifier: { report: false, verify: true, requiredFlag: false },
    orchestrator: { report: true, verify: false, requiredFlag: false },
    lead: { report: true, verify: true, requiredFlag: true },
    admin: { report: true, verify: true, requiredFlag: true },
  };
  const actor = (role: Role): Actor => ({ principalId: `token:${role}`, principalKind: "token", role, label: `${role}_1` });
  const checks = [
    { action: "report", assert: (a: Actor) => authorize(a, "criteria.update"), rule: "criteria.report_role" },
    { action: "verify", assert: (a: Actor) => authorize(a, "criteria.verify"), rule: "criteria.verify_role" },
    { action: "requiredFlag", assert: (a: Actor) => authorize(a, "criteria.setRequired"), rule: "criteria.required_flag_role" },
  ] as const;
  const cases = ROLES.flatMap((role) => checks.map((check) => ({ role, ...check })));

  it.each(cases)("$role → $action", ({ role, action, assert, rule }) => {
    if (MAY[role][action]) {
      expect(() => assert(actor(role))).not.toThrow();
    } else {
      const error = thrown(() => assert(actor(role)));
      expect(error).toBeInstanceOf(RoleForbiddenError);
      expect((error as RoleForbiddenError).rule).toBe(rule);
    }
  });

  it("lets the local operator (admin) do all three", () => {
    for (const { assert } of checks) expect(() => assert(operatorActor("project_manager"))).not.toThrow();
  });
});
