import { describe, expect, it } from "vitest";
import { ValidationError } from "./errors";
import { formatFieldPath, GoalContractInput, isValidGlob, validateGoalContract } from "./goal-contract";

const metric = { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.9 };
const marker = { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" };
const artifact = { id: "AC3", kind: "artifact_exists", artifactPattern: "*.pkl" };
const findings = { id: "AC4", kind: "finding_count", minCount: 2 };
const valid = { goalText: "Build model with >= 90% accuracy", acceptanceCriteria: [metric, marker, artifact, findings] };

/** Builds a contract whose criterion at `index` is replaced by `criterion`. */
function withCriterion(criterion: Record<string, unknown>, index = 1): Record<string, unknown> {
  const acceptanceCriteria: unknown[] = [metric, marker];
  acceptanceCriteria[index] = criterion;
  return { ...valid, acceptanceCriteria };
}

function refusal(input: unknown): ValidationError {
  try {
    validateGoalContract(input);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("validateGoalContract: normalization", () => {
  it("accepts a contract with every kind and fills the defaults", () => {
    expect(validateGoalContract(valid)).toEqual({
      version: 1,
      goalText: "Build model with >= 90% accuracy",
      goalType: null,
      acceptanceCriteria: [metric, marker, artifact, findings],
      maxGoalAttempts: 3,
    });
  });

  it("trims strings, keeps descriptions and given options", () => {
    const contract = validateGoalContract({
      version: 1,
      goalText: "  Analyze churn  ",
      goalType: " eda ",
      maxGoalAttempts: 5,
      acceptanceCriteria: [{ ...marker, id: " AC2 ", marker: " FINDING ", description: " a finding " }],
    });
    expect(contract).toEqual({
      version: 1,
      goalText: "Analyze churn",
      goalType: "eda",
      maxGoalAttempts: 5,
      acceptanceCriteria: [{ id: "AC2", kind: "marker_required", marker: "FINDING", description: "a finding" }],
    });
  });

  it.each([
    ["null", null],
    ["blank", "   "],
  ])("turns a %s goalType into null", (_label, goalType) => {
    expect(validateGoalContract({ ...valid, goalType }).goalType).toBeNull();
  });

  it("drops a blank description", () => {
    const [criterion] = validateGoalContract({ ...valid, acceptanceCriteria: [{ ...marker, description: " " }] }).acceptanceCriteria;
    expect(criterion).not.toHaveProperty("description");
  });

  it.each([1, 100])("accepts maxGoalAttempts %d", (maxGoalAttempts) => {
    expect(validateGoalContract({ ...valid, maxGoalAttempts }).maxGoalAttempts).toBe(maxGoalAttempts);
  });

  it.each([">=", ">", "<=", "<", "==", "!="])("accepts op %s", (op) => {
    expect(validateGoalContract({ ...valid, acceptanceCriteria: [{ ...metric, op }] }).acceptanceCriteria[0]?.op).toBe(op);
  });

  it.each(["*.pkl", "models/**/*.{pkl,joblib}", "report-[0-9].md", ".env*", "!(*.tmp)"])("accepts glob %s", (artifactPattern) => {
    expect(() => validateGoalContract({ ...valid, acceptanceCriteria: [{ ...artifact, artifactPattern }] })).not.toThrow();
  });

  it("exposes the same rules through the zod schema", () => {
    expect(GoalContractInput.safeParse(valid).success).toBe(true);
    expect(GoalContractInput.safeParse(withCriterion({ ...metric, id: "AC1" })).success).toBe(false);
  });
});

describe("validateGoalContract: refusals name the field and the rule", () => {
  const { minCount: _m, ...findingsWithoutMin } = findings;
  const { target: _t, ...metricWithoutTarget } = metric;
  const { metric: _n, ...metricWithoutMetric } = metric;
  const { op: _o, ...metricWithoutOp } = metric;
  const { kind: _k, ...withoutKind } = marker;
  const { goalText: _g, ...withoutGoalText } = valid;

  it.each<[string, unknown, string, string]>([
    ["not an object", "goal", "goalContract", "goal_contract.not_an_object"],
    ["null", null, "goalContract", "goal_contract.not_an_object"],
    ["version 2", { ...valid, version: 2 }, "version", "goal_contract.version_unsupported"],
    ["version as a string", { ...valid, version: "1" }, "version", "goal_contract.version_unsupported"],
    ["missing goalText", withoutGoalText, "goalText", "goal_contract.goal_text_required"],
    ["blank goalText", { ...valid, goalText: "  " }, "goalText", "goal_contract.goal_text_required"],
    ["goalType not a string", { ...valid, goalType: 3 }, "goalType", "goal_contract.goal_type_invalid"],
    ["no criteria", { ...valid, acceptanceCriteria: [] }, "acceptanceCriteria", "goal_contract.criteria_required"],
    ["criteria not a list", { ...valid, acceptanceCriteria: metric }, "acceptanceCriteria", "goal_contract.criteria_required"],
    ["a criterion not an object", withCriterion("AC2" as never), "acceptanceCriteria[1]", "goal_contract.criterion_invalid"],
    ["blank id", withCriterion({ ...marker, id: " " }), "acceptanceCriteria[1].id", "goal_contract.criterion_id_required"],
    ["missing id", withCriterion({ kind: "marker_required", marker: "FINDING" }), "acceptanceCriteria[1].id", "goal_contract.criterion_id_required"],
    ["duplicate id", withCriterion({ ...marker, id: "AC1" }), "acceptanceCriteria[1].id", "goal_contract.criterion_id_duplicate"],
    ["duplicate id after trimming", withCriterion({ ...marker, id: " AC1" }), "acceptanceCriteria[1].id", "goal_contract.criterion_id_duplicate"],
    ["unknown kind", withCriterion({ ...marker, kind: "vibes" }), "acceptanceCriteria[1].kind", "goal_contract.criterion_kind_invalid"],
    ["missing kind", withCriterion(withoutKind), "acceptanceCriteria[1].kind", "goal_contract.criterion_kind_invalid"],
    ["metric missing", withCriterion(metricWithoutMetric), "acceptanceCriteria[1].metric", "goal_contract.metric_threshold_requires_metric"],
    ["metric blank", withCriterion({ ...metric, metric: "" }), "acceptanceCriteria[1].metric", "goal_contract.metric_threshold_requires_metric"],
    ["op missing", withCriterion(metricWithoutOp), "acceptanceCriteria[1].op", "goal_contract.metric_threshold_requires_op"],
    ["op unknown", withCriterion({ ...metric, op: "=>" }), "acceptanceCriteria[1].op", "goal_contract.metric_threshold_requires_op"],
    ["target missing", withCriterion(metricWithoutTarget), "acceptanceCriteria[1].target", "goal_contract.metric_threshold_requires_target"],
    ["target a string", withCriterion({ ...metric, target: "0.9" }), "acceptanceCriteria[1].target", "goal_contract.metric_threshold_requires_target"],
    ["target NaN", withCriterion({ ...metric, target: Number.NaN }), "acceptanceCriteria[1].target", "goal_contract.metric_threshold_requires_target"],
    ["target Infinity", withCriterion({ ...metric, target: Infinity }), "acceptanceCriteria[1].target", "goal_contract.metric_threshold_requires_target"],
    ["marker missing", withCriterion({ id: "AC2", kind: "marker_required" }), "acceptanceCriteria[1].marker", "goal_contract.marker_required_requires_marker"],
    ["marker blank", withCriterion({ ...marker, marker: " " }), "acceptanceCriteria[1].marker", "goal_contract.marker_required_requires_marker"],
    [
      "pattern missing",
      withCriterion({ id: "AC3", kind: "artifact_exists" }),
      "acceptanceCriteria[1].artifactPattern",
      "goal_contract.artifact_exists_requires_pattern",
    ],
    [
      "pattern blank",
      withCriterion({ ...artifact, artifactPattern: "" }),
      "acceptanceCriteria[1].artifactPattern",
      "goal_contract.artifact_exists_requires_pattern",
    ],
    [
      "pattern unbalanced [",
      withCriterion({ ...artifact, artifactPattern: "model[1.pkl" }),
      "acceptanceCriteria[1].artifactPattern",
      "goal_contract.artifact_pattern_invalid",
    ],
    [
      "pattern unbalanced {",
      withCriterion({ ...artifact, artifactPattern: "*.{pkl,joblib" }),
      "acceptanceCriteria[1].artifactPattern",
      "goal_contract.artifact_pattern_invalid",
    ],
    [
      "pattern dangling escape",
      withCriterion({ ...artifact, artifactPattern: "model\\" }),
      "acceptanceCriteria[1].artifactPattern",
      "goal_contract.artifact_pattern_invalid",
    ],
    ["minCount missing", withCriterion(findingsWithoutMin), "acceptanceCriteria[1].minCount", "goal_contract.finding_count_requires_min_count"],
    ["minCount 0", withCriterion({ ...findings, minCount: 0 }), "acceptanceCriteria[1].minCount", "goal_contract.finding_count_requires_min_count"],
    ["minCount fractional", withCriterion({ ...findings, minCount: 1.5 }), "acceptanceCriteria[1].minCount", "goal_contract.finding_count_requires_min_count"],
    ["target on marker_required", withCriterion({ ...marker, target: 1 }), "acceptanceCriteria[1].target", "goal_contract.field_not_allowed_for_kind"],
    [
      "marker on metric_threshold",
      withCriterion({ ...metric, marker: "FINDING" }, 0),
      "acceptanceCriteria[0].marker",
      "goal_contract.field_not_allowed_for_kind",
    ],
    ["minCount on artifact_exists", withCriterion({ ...artifact, minCount: 1 }), "acceptanceCriteria[1].minCount", "goal_contract.field_not_allowed_for_kind"],
    [
      "artifactPattern on finding_count",
      withCriterion({ ...findings, artifactPattern: "*" }),
      "acceptanceCriteria[1].artifactPattern",
      "goal_contract.field_not_allowed_for_kind",
    ],
    ["unknown criterion field", withCriterion({ ...marker, weight: 2 }), "acceptanceCriteria[1].weight", "goal_contract.unknown_field"],
    ["snake_case contract field", { ...valid, max_goal_attempts: 3 }, "max_goal_attempts", "goal_contract.unknown_field"],
    ["maxGoalAttempts 0", { ...valid, maxGoalAttempts: 0 }, "maxGoalAttempts", "goal_contract.max_goal_attempts_out_of_range"],
    ["maxGoalAttempts 101", { ...valid, maxGoalAttempts: 101 }, "maxGoalAttempts", "goal_contract.max_goal_attempts_out_of_range"],
    ["maxGoalAttempts 2.5", { ...valid, maxGoalAttempts: 2.5 }, "maxGoalAttempts", "goal_contract.max_goal_attempts_out_of_range"],
  ])("%s", (_label, input, field, rule) => {
    const error = refusal(input);
    expect({ field: error.field, rule: error.rule }).toEqual({ field, rule });
    expect(error.message.startsWith(`${field}: `)).toBe(true);
  });

  it("hints at the camelCase name of a snake_case field", () => {
    expect(refusal({ ...valid, goal_text: "x" }).message).toContain("did you mean goalText?");
  });

  it("says which kind a misplaced field does not belong to", () => {
    expect(refusal(withCriterion({ ...marker, op: ">=" })).message).toContain("marker_required");
  });
});

describe("helpers", () => {
  it.each<[PropertyKey[], string]>([
    [[], "goalContract"],
    [["goalText"], "goalText"],
    [["acceptanceCriteria", 1, "target"], "acceptanceCriteria[1].target"],
    [["acceptanceCriteria", 0], "acceptanceCriteria[0]"],
  ])("formatFieldPath(%j) = %s", (path, expected) => {
    expect(formatFieldPath(path)).toBe(expected);
  });

  it.each([
    ["*.pkl", true],
    ["a/**/b", true],
    ["[abc", false],
    ["(a", false],
    ["x\\", false],
    ["", false],
  ])("isValidGlob(%j) = %s", (pattern, expected) => {
    expect(isValidGlob(pattern)).toBe(expected);
  });
});
