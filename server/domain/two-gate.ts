/**
 * The two-gate decision. Trust alone once allowed SUCCESS for well-evidenced work that missed its
 * goal (a 75%-accurate model for a 90% goal); SUCCESS now needs both the trust gate (the verifier
 * believes the evidence) and the goal gate (the evidence meets the goal contract).
 */
import { ValidationError } from "./errors";
import type { GoalContract } from "./goal-contract";
import { evaluateGoalGate, type AttemptEvidence, type GoalGateResult, type GoalGateStatus } from "./goal-gate";
import { recommendPivot, type AttemptHistoryEntry, type PivotRecommendation } from "./goal-gate-pivot";

export { recommendPivot, type AttemptHistoryEntry, type PivotInput, type PivotRecommendation } from "./goal-gate-pivot";

/** A verifier's trust score at or above this passes the trust gate. */
export const TRUST_THRESHOLD = 80;

export type TwoGateVerdict = "SUCCESS" | "PARTIAL" | "BLOCKED";

export interface TrustGateResult {
  score: number;
  threshold: number;
  passed: boolean;
}

export interface TwoGateDecision {
  verdict: TwoGateVerdict;
  reason: string;
}

/**
 * The trust gate: passes at a score of 80 or more.
 * @throws ValidationError on field `trustScore` unless the score is a finite number from 0 to 100.
 */
export function evaluateTrustGate(score: number): TrustGateResult {
  if (typeof score !== "number" || !Number.isFinite(score) || score < 0 || score > 100) {
    throw new ValidationError("trustScore", "two_gate.trust_score_out_of_range", "must be a number from 0 to 100");
  }
  return { score, threshold: TRUST_THRESHOLD, passed: score >= TRUST_THRESHOLD };
}

const MATRIX: Record<"PASS" | "FAIL", Record<GoalGateStatus, TwoGateDecision>> = {
  PASS: {
    MET: { verdict: "SUCCESS", reason: "trust gate passed and goal criteria met" },
    NOT_MET: { verdict: "PARTIAL", reason: "evidence is trusted but goal criteria are not met: pivot to another approach" },
    BLOCKED: { verdict: "BLOCKED", reason: "an external blocker stops the goal" },
    NO_CONTRACT: { verdict: "SUCCESS", reason: "trust gate passed; no goal contract, goal gate skipped" },
  },
  FAIL: {
    MET: { verdict: "PARTIAL", reason: "goal criteria met but trust gate failed: rework the evidence" },
    NOT_MET: { verdict: "PARTIAL", reason: "trust gate failed and goal criteria are not met" },
    BLOCKED: { verdict: "BLOCKED", reason: "an external blocker stops the goal (trust gate also failed)" },
    NO_CONTRACT: { verdict: "PARTIAL", reason: "trust gate failed; no goal contract, goal gate skipped" },
  },
};

/** The decision matrix of the two gates (a missing contract counts as a met goal). */
export function decideTwoGate(trustPassed: boolean, goalStatus: GoalGateStatus): TwoGateDecision {
  return { ...MATRIX[trustPassed ? "PASS" : "FAIL"][goalStatus] };
}

export interface EvaluateAttemptInput {
  contract: GoalContract | null | undefined;
  evidence: AttemptEvidence;
  trustScore: number;
  /** 1-based. */
  attemptNumber: number;
  /** What this attempt tried (a model family, a strategy), to tell distinct approaches apart. */
  approach?: string | null;
  /** Earlier attempts at the same goal. */
  history?: readonly AttemptHistoryEntry[];
}

export interface AttemptResult extends TwoGateDecision {
  trust: TrustGateResult;
  goal: GoalGateResult;
  attemptNumber: number;
  /** The contract's max goal attempts; null without a contract (no limit). */
  maxAttempts: number | null;
  approach: string | null;
  pivot: PivotRecommendation;
}

/**
 * Judges one attempt: both gates, the decision matrix, then the attempt limit — an attempt that is
 * not a SUCCESS on or after the contract's last allowed attempt BLOCKS the goal, so a goal cannot be
 * retried forever. Without a contract there is no limit.
 * @throws ValidationError for a bad trust score, a bad attempt number, or malformed evidence.
 */
export function evaluateAttempt(input: EvaluateAttemptInput): AttemptResult {
  const { contract, attemptNumber } = input;
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new ValidationError("attemptNumber", "two_gate.attempt_number_invalid", "must be an integer of at least 1");
  }
  const trust = evaluateTrustGate(input.trustScore);
  const goal = evaluateGoalGate(contract, input.evidence);
  const decision = decideTwoGate(trust.passed, goal.overallStatus);
  const maxAttempts = contract ? contract.maxGoalAttempts : null;
  const detail = `${goal.summary}; trust score ${trust.score} (needs ${trust.threshold})`;
  let verdict = decision.verdict;
  let reason = `${decision.reason} — ${detail}`;
  if (verdict !== "SUCCESS" && maxAttempts !== null && attemptNumber >= maxAttempts) {
    const limit = `max goal attempts (${maxAttempts}) reached`;
    reason = verdict === "BLOCKED" ? `${reason}; ${limit}` : `${limit} without success — ${reason}`;
    verdict = "BLOCKED";
  }
  const approach = input.approach?.trim() || null;
  const outcome = { verdict, reason, trust, goal, attemptNumber, maxAttempts, approach };
  return { ...outcome, pivot: recommendPivot(outcome, input.history ?? []) };
}
