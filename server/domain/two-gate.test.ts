import { describe, expect, it } from "vitest";
import { ValidationError } from "./errors";
import { validateGoalContract, type GoalContract } from "./goal-contract";
import { evaluateGoalGate, type AttemptEvidence, type GoalGateStatus } from "./goal-gate";
import { decideTwoGate, evaluateAttempt, evaluateTrustGate, recommendPivot, TRUST_THRESHOLD, type AttemptHistoryEntry, type TwoGateVerdict } from "./two-gate";

const accuracyContract = (target: number, extra: Record<string, unknown> = {}): GoalContract =>
  validateGoalContract({
    goalText: `Build model with >= ${target * 100}% accuracy`,
    acceptanceCriteria: [{ id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target }],
    ...extra,
  });

const accuracy = (value: number): AttemptEvidence => ({ output: `[METRIC:cv_accuracy_mean] ${value}` });

function historyEntry(attemptNumber: number, approach: string, metric: number, verdict: TwoGateVerdict = "PARTIAL"): AttemptHistoryEntry {
  return { attemptNumber, approach, goal: evaluateGoalGate(accuracyContract(0.9), accuracy(metric)), verdict };
}

describe("seed scenarios (002)", () => {
  it("A: goal met and trust high → SUCCESS", () => {
    const result = evaluateAttempt({ contract: accuracyContract(0.8), evidence: accuracy(0.85), trustScore: 90, attemptNumber: 1 });
    expect(result.verdict).toBe("SUCCESS");
    expect(result.goal.overallStatus).toBe("MET");
    expect(result.trust).toEqual({ score: 90, threshold: 80, passed: true });
    expect(result.pivot).toMatchObject({ shouldPivot: false, unachievable: false, suggestions: [] });
  });

  it("B: goal not met with trust high → PARTIAL, 0/1 criteria, pivot", () => {
    const result = evaluateAttempt({ contract: accuracyContract(0.9), evidence: accuracy(0.75), trustScore: 85, attemptNumber: 1 });
    expect(result.verdict).toBe("PARTIAL");
    expect(result.goal.summary).toBe("Goal criteria not met: 0/1 criteria passed");
    expect(result.reason).toContain("Goal criteria not met: 0/1 criteria passed");
    expect(result.pivot.shouldPivot).toBe(true);
    expect(result.pivot.suggestions).toContain("cv_accuracy_mean is 0.75, needs >= 0.9 — try a different model family or feature set");
  });

  it("C: no goal contract with trust 82 → SUCCESS, no attempt limit", () => {
    const result = evaluateAttempt({ contract: null, evidence: {}, trustScore: 82, attemptNumber: 7 });
    expect(result).toMatchObject({ verdict: "SUCCESS", maxAttempts: null, goal: { overallStatus: "NO_CONTRACT", passed: true } });
  });

  it("D: two of three criteria met → PARTIAL, 2/3 criteria", () => {
    const contract = validateGoalContract({
      goalText: "Analyze customer churn with statistical evidence",
      acceptanceCriteria: [
        { id: "AC1", kind: "metric_threshold", metric: "cv_accuracy_mean", op: ">=", target: 0.75 },
        { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" },
        { id: "AC3", kind: "finding_count", minCount: 2 },
      ],
    });
    const evidence = { output: "[METRIC:cv_accuracy_mean] 0.78\n[METRIC:baseline_accuracy] 0.6", verifiedFindings: 1 };
    const result = evaluateAttempt({ contract, evidence, trustScore: 85, attemptNumber: 1 });
    expect(result.verdict).toBe("PARTIAL");
    expect(result.goal.summary).toBe("Goal criteria not met: 2/3 criteria passed");
    expect(result.pivot.suggestions[0]).toBe(
      "only 1 verified finding, needs >= 2 verified findings — state more findings with evidence and have a verifier confirm them",
    );
  });
});

describe("evaluateTrustGate", () => {
  it.each([
    [79.99, false],
    [80, true],
    [0, false],
    [100, true],
  ])("score %d → passed %s", (score, passed) => {
    expect(evaluateTrustGate(score)).toEqual({ score, threshold: TRUST_THRESHOLD, passed });
  });

  it("has threshold 80", () => {
    expect(TRUST_THRESHOLD).toBe(80);
  });

  it.each([-0.01, 100.01, Number.NaN, Infinity, "85" as unknown as number])("refuses %s on field trustScore", (score) => {
    expect(() => evaluateTrustGate(score)).toThrow(ValidationError);
    expect(() => evaluateTrustGate(score)).toThrow(expect.objectContaining({ field: "trustScore", rule: "two_gate.trust_score_out_of_range" }));
  });
});

describe("decideTwoGate", () => {
  it.each<[boolean, GoalGateStatus, TwoGateVerdict, string]>([
    [true, "MET", "SUCCESS", "goal criteria met"],
    [true, "NOT_MET", "PARTIAL", "pivot"],
    [true, "BLOCKED", "BLOCKED", "external blocker"],
    [false, "MET", "PARTIAL", "rework the evidence"],
    [false, "NOT_MET", "PARTIAL", "trust gate failed"],
    [false, "BLOCKED", "BLOCKED", "external blocker"],
    [true, "NO_CONTRACT", "SUCCESS", "no goal contract"],
    [false, "NO_CONTRACT", "PARTIAL", "no goal contract"],
  ])("trust passed %s, goal %s → %s", (trustPassed, goalStatus, verdict, reasonPart) => {
    const decision = decideTwoGate(trustPassed, goalStatus);
    expect(decision.verdict).toBe(verdict);
    expect(decision.reason).toContain(reasonPart);
  });
});

describe("evaluateAttempt: both gates through a real evaluation", () => {
  it.each<[number, number, TwoGateVerdict]>([
    [0.95, 85, "SUCCESS"],
    [0.75, 85, "PARTIAL"],
    [0.95, 79.99, "PARTIAL"],
    [0.75, 50, "PARTIAL"],
  ])("accuracy %d, trust %d → %s", (value, trustScore, verdict) => {
    expect(evaluateAttempt({ contract: accuracyContract(0.9), evidence: accuracy(value), trustScore, attemptNumber: 1 }).verdict).toBe(verdict);
  });

  it.each([85, 40])("an external blocker → BLOCKED whatever the trust (%d)", (trustScore) => {
    const evidence = { blocked: { AC1: "GPU quota exhausted" } };
    const result = evaluateAttempt({ contract: accuracyContract(0.9), evidence, trustScore, attemptNumber: 1 });
    expect(result.verdict).toBe("BLOCKED");
    expect(result.goal.blockers).toEqual(["AC1: GPU quota exhausted"]);
    expect(result.pivot.shouldPivot).toBe(false);
  });

  it("no contract and trust below 80 → PARTIAL", () => {
    expect(evaluateAttempt({ contract: undefined, evidence: {}, trustScore: 79.99, attemptNumber: 1 }).verdict).toBe("PARTIAL");
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses attemptNumber %d", (attemptNumber) => {
    const attempt = () => evaluateAttempt({ contract: null, evidence: {}, trustScore: 90, attemptNumber });
    expect(attempt).toThrow(expect.objectContaining({ field: "attemptNumber", rule: "two_gate.attempt_number_invalid" }));
  });

  it("refuses a bad trust score", () => {
    expect(() => evaluateAttempt({ contract: null, evidence: {}, trustScore: 101, attemptNumber: 1 })).toThrow(
      expect.objectContaining({ field: "trustScore" }),
    );
  });
});

describe("evaluateAttempt: max goal attempts", () => {
  const contract = accuracyContract(0.9);

  it("attempt 3 of 3 without success → BLOCKED naming the limit", () => {
    const result = evaluateAttempt({ contract, evidence: accuracy(0.75), trustScore: 85, attemptNumber: 3 });
    expect(result).toMatchObject({ verdict: "BLOCKED", attemptNumber: 3, maxAttempts: 3 });
    expect(result.reason).toContain("max goal attempts (3) reached");
    expect(result.pivot).toMatchObject({ shouldPivot: false, attemptsLeft: 0 });
    expect(result.pivot.suggestions).toContain("max goal attempts (3) reached — escalate to a lead");
  });

  it("attempt 2 of 3 without success → PARTIAL with one attempt left", () => {
    const result = evaluateAttempt({ contract, evidence: accuracy(0.75), trustScore: 85, attemptNumber: 2 });
    expect(result.verdict).toBe("PARTIAL");
    expect(result.reason).not.toContain("max goal attempts");
    expect(result.pivot).toMatchObject({ shouldPivot: true, attemptsLeft: 1 });
    expect(result.pivot.suggestions).toContain("1 goal attempt left before the goal is blocked");
  });

  it("success at attempt 3 of 3 → SUCCESS", () => {
    expect(evaluateAttempt({ contract, evidence: accuracy(0.95), trustScore: 85, attemptNumber: 3 }).verdict).toBe("SUCCESS");
  });

  it("tells a trust failure with the goal met how many attempts remain", () => {
    const result = evaluateAttempt({ contract, evidence: accuracy(0.95), trustScore: 70, attemptNumber: 1 });
    expect(result.pivot.suggestions).toContain("2 goal attempts left before the goal is blocked");
  });

  it("a trust failure on the last attempt also blocks", () => {
    expect(evaluateAttempt({ contract, evidence: accuracy(0.95), trustScore: 70, attemptNumber: 3 }).verdict).toBe("BLOCKED");
  });

  it("past the limit stays BLOCKED", () => {
    expect(evaluateAttempt({ contract, evidence: accuracy(0.75), trustScore: 85, attemptNumber: 4 }).verdict).toBe("BLOCKED");
  });

  it("uses the contract's own limit", () => {
    const five = accuracyContract(0.9, { maxGoalAttempts: 5 });
    expect(evaluateAttempt({ contract: five, evidence: accuracy(0.75), trustScore: 85, attemptNumber: 4 }).verdict).toBe("PARTIAL");
    const last = evaluateAttempt({ contract: five, evidence: accuracy(0.75), trustScore: 85, attemptNumber: 5 });
    expect(last.reason).toContain("max goal attempts (5) reached");
  });

  it("keeps an external blocker's reason and adds the limit", () => {
    const result = evaluateAttempt({ contract, evidence: { blocked: { AC1: "no data" } }, trustScore: 85, attemptNumber: 3 });
    expect(result.verdict).toBe("BLOCKED");
    expect(result.reason).toMatch(/^an external blocker stops the goal.*max goal attempts \(3\) reached$/);
  });
});

describe("recommendPivot", () => {
  const contract = accuracyContract(0.9);
  const attempt = (approach: string | undefined, history: AttemptHistoryEntry[], attemptNumber = 2) =>
    evaluateAttempt({ contract, evidence: accuracy(0.75), trustScore: 85, attemptNumber, approach, history }).pivot;

  it("counts two distinct failed approaches, including this one, as unachievable", () => {
    const pivot = attempt("random forest", [historyEntry(1, "logistic regression", 0.7)]);
    expect(pivot.unachievable).toBe(true);
    expect(pivot.suggestions).toContain(
      "2 distinct approaches (logistic regression, random forest) failed to meet the goal — report it as unachievable or renegotiate the goal contract with a lead",
    );
  });

  it("does not count the same approach twice (case-insensitive)", () => {
    const pivot = attempt("Random Forest", [historyEntry(1, "random forest", 0.7)]);
    expect(pivot.unachievable).toBe(false);
    expect(pivot.suggestions).toContain("try an approach other than random forest");
  });

  it("counts only goal failures, not attempts whose goal was met", () => {
    const pivot = attempt("random forest", [historyEntry(1, "gradient boosting", 0.95, "PARTIAL")]);
    expect(pivot.unachievable).toBe(false);
  });

  it("counts history alone when this attempt names no approach", () => {
    const history = [historyEntry(1, "logistic regression", 0.7), historyEntry(2, "svm", 0.72)];
    expect(attempt(undefined, history, 3).unachievable).toBe(true);
    expect(attempt(undefined, history.slice(0, 1), 3).unachievable).toBe(false);
  });

  it("ignores history entries for this attempt or later ones", () => {
    const pivot = attempt("random forest", [historyEntry(2, "svm", 0.7), historyEntry(3, "knn", 0.7)]);
    expect(pivot.unachievable).toBe(false);
  });

  it("is never unachievable once the goal is met", () => {
    const result = evaluateAttempt({
      contract,
      evidence: accuracy(0.95),
      trustScore: 85,
      attemptNumber: 3,
      approach: "xgboost",
      history: [historyEntry(1, "a", 0.5), historyEntry(2, "b", 0.5)],
    });
    expect(result.pivot).toMatchObject({ unachievable: false, shouldPivot: false, suggestions: [] });
  });

  it("does not pivot when trust fails, and asks for stronger evidence", () => {
    const result = evaluateAttempt({ contract, evidence: accuracy(0.95), trustScore: 72, attemptNumber: 1 });
    expect(result.pivot.shouldPivot).toBe(false);
    expect(result.pivot.suggestions).toEqual([
      "strengthen evidence: trust score 72 is below 80 — add confidence intervals, effect sizes and reproducible checks the verifier can confirm",
      "2 goal attempts left before the goal is blocked",
    ]);
  });

  it("derives a concrete suggestion from each failing criterion", () => {
    const wide = validateGoalContract({
      goalText: "churn study",
      maxGoalAttempts: 4,
      acceptanceCriteria: [
        { id: "AC1", kind: "metric_threshold", metric: "auc", op: ">", target: 0.8 },
        { id: "AC2", kind: "marker_required", marker: "METRIC:baseline_accuracy" },
        { id: "AC3", kind: "marker_required", marker: "STAT:*" },
        { id: "AC4", kind: "artifact_exists", artifactPattern: "*.pkl" },
        { id: "AC5", kind: "finding_count", minCount: 3 },
        { id: "AC6", kind: "marker_required", marker: "FINDING" },
      ],
    });
    const result = evaluateAttempt({
      contract: wide,
      evidence: { verifiedFindings: 1, blocked: { AC6: "verifier unavailable" } },
      trustScore: 90,
      attemptNumber: 1,
    });
    expect(result.verdict).toBe("BLOCKED");
    expect(result.pivot.suggestions).toEqual([
      "auc was not reported — emit [METRIC:auc] <value> in the output or report it in metrics",
      "emit [METRIC:baseline_accuracy] <value> in the output — the goal contract requires this marker",
      "emit a marker matching [STAT:*] — the goal contract requires one",
      "no artifact matches *.pkl — save the artifact and report its path",
      "only 1 verified finding, needs >= 3 verified findings — state more findings with evidence and have a verifier confirm them",
      "AC6 is blocked: verifier unavailable — resolve the external blocker or escalate to a lead",
    ]);
  });

  it("pivots on an unreported metric (UNKNOWN) with trust passing", () => {
    const result = evaluateAttempt({ contract, evidence: {}, trustScore: 85, attemptNumber: 1 });
    expect(result.goal.criteriaResults[0]?.status).toBe("UNKNOWN");
    expect(result.pivot.shouldPivot).toBe(true);
  });

  it("reports no attempt budget without a contract", () => {
    const pivot = recommendPivot({ goal: evaluateGoalGate(null, {}), trust: evaluateTrustGate(50), attemptNumber: 9, maxAttempts: null }, []);
    expect(pivot).toEqual({
      shouldPivot: false,
      attemptNumber: 9,
      maxAttempts: null,
      attemptsLeft: null,
      unachievable: false,
      suggestions: [
        "strengthen evidence: trust score 50 is below 80 — add confidence intervals, effect sizes and reproducible checks the verifier can confirm",
      ],
    });
  });
});
