/**
 * The pivot protocol: after an attempt misses its goal with trusted evidence, say what to try next,
 * and notice when distinct approaches keep failing so the goal can be called unachievable instead
 * of retried.
 */
import type { CriterionResult, GoalGateResult } from "./goal-gate";
import type { TrustGateResult, TwoGateVerdict } from "./two-gate";

export interface AttemptHistoryEntry {
  attemptNumber: number;
  /** What the attempt tried, e.g. `logistic regression` or `feature selection by mutual information`. */
  approach: string;
  goal: GoalGateResult;
  verdict: TwoGateVerdict;
}

/** The parts of an attempt's result the recommendation reads. */
export interface PivotInput {
  goal: GoalGateResult;
  trust: TrustGateResult;
  attemptNumber: number;
  maxAttempts: number | null;
  approach?: string | null;
}

export interface PivotRecommendation {
  shouldPivot: boolean;
  attemptNumber: number;
  maxAttempts: number | null;
  /** Attempts still allowed after this one; null when there is no limit. */
  attemptsLeft: number | null;
  /** Two or more distinct approaches failed to meet the goal. */
  unachievable: boolean;
  suggestions: string[];
}

/** Distinct approaches at which the ones that failed the goal make it unachievable. */
export const UNACHIEVABLE_AFTER_APPROACHES = 2;

/**
 * Recommends what to do after an attempt. It pivots when trusted evidence shows the goal not met
 * (including unreported metrics) and attempts remain. Only goal failures count as failed approaches:
 * a trust failure means the evidence needs rework, not that the approach was wrong.
 */
export function recommendPivot(result: PivotInput, history: readonly AttemptHistoryEntry[]): PivotRecommendation {
  const { goal, trust, attemptNumber, maxAttempts } = result;
  const attemptsLeft = maxAttempts === null ? null : Math.max(0, maxAttempts - attemptNumber);
  const goalNotMet = goal.overallStatus === "NOT_MET";
  const failed = failedApproaches(result, history);
  const unachievable = goalNotMet && failed.length >= UNACHIEVABLE_AFTER_APPROACHES;
  const shouldPivot = goalNotMet && trust.passed && attemptsLeft !== 0;

  const suggestions = goal.criteriaResults.flatMap(suggestionFor);
  if (!trust.passed) {
    suggestions.push(
      `strengthen evidence: trust score ${trust.score} is below ${trust.threshold} — add confidence intervals, ` +
        "effect sizes and reproducible checks the verifier can confirm",
    );
  }
  if (unachievable) {
    suggestions.push(
      `${failed.length} distinct approaches (${failed.join(", ")}) failed to meet the goal — ` +
        "report it as unachievable or renegotiate the goal contract with a lead",
    );
  } else if (shouldPivot && failed.length > 0) {
    suggestions.push(`try an approach other than ${failed.join(", ")}`);
  }
  // An external blocker ends the goal regardless of the budget, so the budget is only news otherwise.
  const retryable = goalNotMet || (goal.overallStatus === "MET" && !trust.passed);
  if (retryable && attemptsLeft !== null) {
    suggestions.push(
      attemptsLeft === 0
        ? `max goal attempts (${maxAttempts}) reached — escalate to a lead`
        : `${attemptsLeft} goal attempt${attemptsLeft === 1 ? "" : "s"} left before the goal is blocked`,
    );
  }
  return { shouldPivot, attemptNumber, maxAttempts, attemptsLeft, unachievable, suggestions };
}

function suggestionFor(result: CriterionResult): string[] {
  const { subject, target, actual, status } = result;
  if (status === "MET") return [];
  if (status === "BLOCKED") return [`${result.criterionId} is ${result.message} — resolve the external blocker or escalate to a lead`];
  switch (result.kind) {
    case "metric_threshold":
      return status === "UNKNOWN"
        ? [`${subject} was not reported — emit [METRIC:${subject}] <value> in the output or report it in metrics`]
        : [`${subject} is ${actual}, needs ${target} — try a different model family or feature set`];
    case "marker_required":
      return subject.includes("*")
        ? [`emit a marker matching [${subject}] — the goal contract requires one`]
        : [`emit [${subject}] <value> in the output — the goal contract requires this marker`];
    case "artifact_exists":
      return [`no artifact matches ${subject} — save the artifact and report its path`];
    case "finding_count":
      return [
        `only ${actual ?? 0} verified finding${actual === 1 ? "" : "s"}, needs ${target} — ` +
          "state more findings with evidence and have a verifier confirm them",
      ];
  }
}

/** Distinct (case-insensitive) approaches of earlier attempts and this one that failed the goal. */
function failedApproaches(result: PivotInput, history: readonly AttemptHistoryEntry[]): string[] {
  const attempts = history.filter((entry) => entry.attemptNumber < result.attemptNumber).map((entry) => ({ approach: entry.approach, goal: entry.goal }));
  if (result.approach) attempts.push({ approach: result.approach, goal: result.goal });
  const byKey = new Map<string, string>();
  for (const { approach, goal } of attempts) {
    const name = approach.trim();
    const key = name.toLowerCase();
    if (goal.overallStatus === "NOT_MET" && name !== "" && !byKey.has(key)) byKey.set(key, name);
  }
  return [...byKey.values()];
}
