import { describe, expect, it } from "vitest";
import { ValidationError } from "./errors";
import { validateGoalContract, type AcceptanceCriterion, type ComparisonOp, type GoalContract } from "./goal-contract";
import { evaluateGoalGate, type AttemptEvidence } from "./goal-gate";
import { artifactMatches, compare, markerMatches } from "./goal-gate-criteria";

function contractOf(...acceptanceCriteria: Omit<AcceptanceCriterion, "id">[]): GoalContract {
  return validateGoalContract({
    goalText: "goal",
    acceptanceCriteria: acceptanceCriteria.map((criterion, index) => ({ id: `AC${index + 1}`, ...criterion })),
  });
}

const metricCriterion = (op: ComparisonOp, target: number) => ({ kind: "metric_threshold" as const, metric: "m", op, target });
const statusOf = (contract: GoalContract, evidence: AttemptEvidence) => evaluateGoalGate(contract, evidence).criteriaResults[0]?.status;

describe("goal gate: seed scenarios (002)", () => {
  it("A: accuracy 0.85 against >= 0.80 is met", () => {
    const contract = contractOf({ kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.8 });
    const result = evaluateGoalGate(contract, { output: "[METRIC:cv_accuracy_mean] 0.85" });
    expect(result).toMatchObject({ overallStatus: "MET", passed: true, metCount: 1, totalCount: 1, blockers: [] });
    expect(result.summary).toBe("Goal criteria met: 1/1 criteria passed");
    expect(result.criteriaResults[0]).toMatchObject({ criterionId: "AC1", status: "MET", actual: 0.85, target: ">= 0.8" });
  });

  it("B: accuracy 0.75 against >= 0.90 is not met, 0/1", () => {
    const contract = contractOf({ kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.9 });
    const result = evaluateGoalGate(contract, { metrics: { cv_accuracy_mean: 0.75 } });
    expect(result).toMatchObject({ overallStatus: "NOT_MET", passed: false, metCount: 0, totalCount: 1 });
    expect(result.summary).toBe("Goal criteria not met: 0/1 criteria passed");
    expect(result.criteriaResults[0]).toEqual({
      criterionId: "AC1",
      kind: "metric_threshold",
      subject: "cv_accuracy_mean",
      status: "NOT_MET",
      actual: 0.75,
      target: ">= 0.9",
      message: "cv_accuracy_mean is 0.75, needs >= 0.9",
    });
  });

  it("C: no contract skips the gate and passes", () => {
    for (const contract of [null, undefined]) {
      expect(evaluateGoalGate(contract, {})).toEqual({
        overallStatus: "NO_CONTRACT",
        passed: true,
        criteriaResults: [],
        metCount: 0,
        totalCount: 0,
        blockers: [],
        summary: "No goal contract: goal gate skipped",
      });
    }
  });

  it("D: two of three criteria met, 2/3", () => {
    const contract = contractOf(
      { kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.75 },
      { kind: "marker_required", marker: "METRIC:baseline_accuracy" },
      { kind: "finding_count", minCount: 2 },
    );
    const output = "[METRIC:cv_accuracy_mean] 0.78\n[METRIC:baseline_accuracy] 0.61\n[FINDING] churn rises with tenure";
    const result = evaluateGoalGate(contract, { output, verifiedFindings: 1 });
    expect(result.criteriaResults.map((r) => [r.criterionId, r.status, r.actual])).toEqual([
      ["AC1", "MET", 0.78],
      ["AC2", "MET", "METRIC:baseline_accuracy"],
      ["AC3", "NOT_MET", 1],
    ]);
    expect(result).toMatchObject({ overallStatus: "NOT_MET", passed: false, metCount: 2, totalCount: 3 });
    expect(result.summary).toBe("Goal criteria not met: 2/3 criteria passed");
  });
});

describe("metric_threshold", () => {
  it.each<[ComparisonOp, number, number, boolean]>([
    [">=", 0.9, 0.9, true],
    [">=", 0.9, 0.8999999, false],
    [">=", 0.9, 0.95, true],
    [">", 0.9, 0.9000001, true],
    [">", 0.9, 0.9, false],
    ["<=", 0.1, 0.1, true],
    ["<=", 0.1, 0.1000001, false],
    ["<", 0.1, 0.0999999, true],
    ["<", 0.1, 0.1, false],
    ["==", 1, 1, true],
    ["==", 0.3, 0.1 + 0.2, true],
    ["==", 1, 1 + 5e-10, true],
    ["==", 1, 1 + 2e-9, false],
    ["==", 1, 1 - 2e-9, false],
    ["!=", 1, 1 + 2e-9, true],
    ["!=", 1, 1 + 5e-10, false],
    ["!=", 0.3, 0.1 + 0.2, false],
    ["!=", 0, 1, true],
  ])("%s %d with actual %d → %s", (op, target, actual, met) => {
    expect(compare(actual, op, target)).toBe(met);
    expect(statusOf(contractOf(metricCriterion(op, target)), { metrics: { m: actual } })).toBe(met ? "MET" : "NOT_MET");
  });

  it("orders exactly: 0.7 + 0.1 does not reach >= 0.8", () => {
    expect(statusOf(contractOf(metricCriterion(">=", 0.8)), { metrics: { m: 0.7 + 0.1 } })).toBe("NOT_MET");
  });

  it("is UNKNOWN when the metric was not reported, and that is not met", () => {
    const result = evaluateGoalGate(contractOf(metricCriterion(">=", 0.5)), { metrics: { other: 1 }, output: "[METRIC:m] high" });
    expect(result.criteriaResults[0]).toMatchObject({ status: "UNKNOWN", actual: null, message: "m was not reported (needs >= 0.5)" });
    expect(result).toMatchObject({ overallStatus: "NOT_MET", passed: false, metCount: 0 });
  });

  it("lets explicit metrics win over parsed output, and the last output line win among markers", () => {
    const contract = contractOf(metricCriterion(">=", 0.8));
    expect(statusOf(contract, { output: "[METRIC:m] 0.9", metrics: { m: 0.7 } })).toBe("NOT_MET");
    expect(statusOf(contract, { output: "[METRIC:m] 0.7", metrics: { m: 0.9 } })).toBe("MET");
    expect(statusOf(contract, { output: "[METRIC:m] 0.9\n[METRIC:m] 0.7" })).toBe("NOT_MET");
  });

  it("reads percentages in output as fractions", () => {
    expect(statusOf(contractOf(metricCriterion(">=", 0.8)), { output: "[METRIC:m] 85%" })).toBe("MET");
  });
});

describe("marker_required", () => {
  it.each<[string, AttemptEvidence, boolean]>([
    ["METRIC:baseline_accuracy", { markers: ["METRIC:baseline_accuracy"] }, true],
    ["METRIC:baseline_accuracy", { markers: ["[METRIC:baseline_accuracy]"] }, true],
    ["METRIC:baseline_accuracy", { output: "[METRIC:baseline_accuracy] 0.6" }, true],
    ["METRIC:baseline_accuracy", { metrics: { baseline_accuracy: 0.6 } }, true],
    ["METRIC:baseline_*", { markers: ["METRIC:baseline_f1"] }, true],
    ["METRIC:baseline_*", { markers: ["METRIC:baseline_"] }, true],
    ["*:ci", { output: "[STAT:ci] 0.02-0.05" }, true],
    ["FINDING", { output: "[FINDING] x" }, true],
    ["METRIC:baseline_*", { markers: ["METRIC:model_accuracy", "METRIC:baseline"] }, false],
    ["METRIC:baseline_*", { markers: ["STAT:METRIC:baseline_f1"] }, false],
    ["METRIC:baseline_accuracy", { markers: ["METRIC:baseline_accuracy_cv"] }, false],
    ["METRIC:baseline_accuracy", { markers: ["metric:baseline_accuracy"] }, false],
    ["METRIC:a.c", { markers: ["METRIC:abc"] }, false],
    ["FINDING", { output: "[FINDING:x] y" }, false],
    ["FINDING", {}, false],
  ])("%s with %j → met %s", (marker, evidence, met) => {
    expect(statusOf(contractOf({ kind: "marker_required", marker }), evidence)).toBe(met ? "MET" : "NOT_MET");
  });

  it("reports the matched key and a message", () => {
    const [result] = evaluateGoalGate(contractOf({ kind: "marker_required", marker: "METRIC:baseline_*" }), {
      markers: ["FINDING", "METRIC:baseline_f1"],
    }).criteriaResults;
    expect(result).toMatchObject({ actual: "METRIC:baseline_f1", target: "[METRIC:baseline_*]", message: "marker [METRIC:baseline_f1] is present" });
  });

  it.each([
    ["METRIC:a*", "METRIC:a", true],
    ["*", "ANY:thing", true],
    ["A*B*C", "AxxBxxC", true],
    ["A*B*C", "AxxCxxB", false],
    ["A+B", "AAB", false],
    ["A+B", "A+B", true],
  ])("markerMatches(%j, %j) = %s", (pattern, key, expected) => {
    expect(markerMatches(pattern, key)).toBe(expected);
  });
});

describe("artifact_exists", () => {
  it.each<[string, string[], string | null]>([
    ["*.pkl", ["model.pkl"], "model.pkl"],
    ["*.pkl", ["report.md", "models/m.pkl"], "models/m.pkl"],
    ["*.pkl", ["./out/deep/nested/m.pkl"], "./out/deep/nested/m.pkl"],
    ["*.pkl", ["models\\win.pkl"], "models\\win.pkl"],
    ["*.pkl", [".hidden.pkl"], ".hidden.pkl"],
    [".env*", ["config/.env.local"], "config/.env.local"],
    ["models/*.pkl", ["models/m.pkl"], "models/m.pkl"],
    ["models/*.pkl", ["./models/m.pkl"], "./models/m.pkl"],
    ["**/*.{pkl,joblib}", ["a/b/c.joblib"], "a/b/c.joblib"],
    ["models/*.pkl", ["other/models/m.pkl", "models/deep/m.pkl"], null],
    ["*.pkl", ["model.pkl.bak", "pkl", "model.pk"], null],
    ["*.pkl", ["MODEL.PKL"], null],
    ["*.pkl", [], null],
  ])("%s in %j → %s", (artifactPattern, artifacts, match) => {
    const [result] = evaluateGoalGate(contractOf({ kind: "artifact_exists", artifactPattern }), { artifacts }).criteriaResults;
    expect(result?.status).toBe(match === null ? "NOT_MET" : "MET");
    expect(result?.actual).toBe(match);
  });

  it("is not met without any artifacts reported", () => {
    expect(statusOf(contractOf({ kind: "artifact_exists", artifactPattern: "*" }), {})).toBe("NOT_MET");
  });

  it("matches basename-only patterns against the file name", () => {
    expect(artifactMatches("m.pkl", "a/b/m.pkl")).toBe(true);
    expect(artifactMatches("b/m.pkl", "a/b/m.pkl")).toBe(false);
  });
});

describe("finding_count", () => {
  it.each<[number | undefined, number, boolean]>([
    [2, 2, true],
    [3, 2, true],
    [1, 2, false],
    [0, 1, false],
    [undefined, 1, false],
  ])("%s verified findings against minCount %d → met %s", (verifiedFindings, minCount, met) => {
    const [result] = evaluateGoalGate(contractOf({ kind: "finding_count", minCount }), { verifiedFindings }).criteriaResults;
    expect(result).toMatchObject({ status: met ? "MET" : "NOT_MET", actual: verifiedFindings ?? 0 });
  });

  it("counts only verified findings, not FINDING markers", () => {
    expect(statusOf(contractOf({ kind: "finding_count", minCount: 1 }), { output: "[FINDING] a\n[FINDING] b" })).toBe("NOT_MET");
  });
});

describe("blocked criteria and the overall status", () => {
  const contract = contractOf(metricCriterion(">=", 0.9), { kind: "finding_count", minCount: 1 });

  it("marks a blocked criterion BLOCKED, and the goal BLOCKED", () => {
    const result = evaluateGoalGate(contract, { metrics: { m: 0.95 }, blocked: { AC2: " dataset access revoked " } });
    expect(result.criteriaResults[1]).toMatchObject({ status: "BLOCKED", message: "blocked: dataset access revoked" });
    expect(result).toMatchObject({ overallStatus: "BLOCKED", passed: false, metCount: 1, blockers: ["AC2: dataset access revoked"] });
    expect(result.summary).toBe("Goal blocked (AC2: dataset access revoked): 1/2 criteria passed");
  });

  it("keeps a criterion the evidence meets as MET even if listed as blocked", () => {
    const result = evaluateGoalGate(contract, { metrics: { m: 0.95 }, verifiedFindings: 1, blocked: { AC2: "late" } });
    expect(result).toMatchObject({ overallStatus: "MET", passed: true, blockers: [] });
  });

  it("puts BLOCKED above NOT_MET", () => {
    expect(evaluateGoalGate(contract, { metrics: { m: 0.1 }, blocked: { AC2: "x" } }).overallStatus).toBe("BLOCKED");
  });

  it("is MET only when every criterion is", () => {
    expect(evaluateGoalGate(contract, { metrics: { m: 0.95 }, verifiedFindings: 1 }).overallStatus).toBe("MET");
    expect(evaluateGoalGate(contract, { metrics: { m: 0.95 } }).overallStatus).toBe("NOT_MET");
  });
});

describe("malformed evidence is refused", () => {
  const contract = contractOf(metricCriterion(">=", 0.9));
  it.each<[string, AttemptEvidence, string, string]>([
    ["NaN metric", { metrics: { m: Number.NaN } }, "metrics.m", "goal_gate.metric_not_finite"],
    ["infinite metric", { metrics: { m: Infinity } }, "metrics.m", "goal_gate.metric_not_finite"],
    ["negative findings", { verifiedFindings: -1 }, "verifiedFindings", "goal_gate.verified_findings_invalid"],
    ["fractional findings", { verifiedFindings: 1.5 }, "verifiedFindings", "goal_gate.verified_findings_invalid"],
    ["blocker for an unknown criterion", { blocked: { AC9: "x" } }, "blocked.AC9", "goal_gate.unknown_criterion"],
    ["blocker without a reason", { blocked: { AC1: "  " } }, "blocked.AC1", "goal_gate.blocker_reason_required"],
  ])("%s", (_label, evidence, field, rule) => {
    const attempt = () => evaluateGoalGate(contract, evidence);
    expect(attempt).toThrow(ValidationError);
    expect(attempt).toThrow(expect.objectContaining({ field, rule }));
  });

  it("does not validate evidence when there is no contract", () => {
    expect(evaluateGoalGate(null, { metrics: { m: Number.NaN } }).overallStatus).toBe("NO_CONTRACT");
  });
});
