/**
 * The goal gate: does an attempt's evidence meet its goal contract's acceptance criteria? It is the
 * second of the two gates — the trust gate asks whether the evidence is sound, this one whether it
 * shows the goal was reached.
 */
import { ValidationError } from "./errors";
import type { AcceptanceCriterionKind, GoalContract } from "./goal-contract";
import { describeSubject, describeTarget, evaluateCriterion, normalizeMarkerKey, type NormalizedEvidence } from "./goal-gate-criteria";
import { metricsFromMarkers, parseMarkers } from "./markers";

/** What an attempt reports. Every field is optional; missing evidence simply fails the criteria that need it. */
export interface AttemptEvidence {
  /** Explicit metric values; they win over METRIC markers parsed from `output`. */
  metrics?: Record<string, number>;
  /** Marker keys such as `METRIC:baseline_accuracy` or `FINDING`. */
  markers?: string[];
  /** Raw output; its marker lines count as markers, and its METRIC lines as metrics. */
  output?: string;
  /** Paths of the files the attempt produced. */
  artifacts?: string[];
  /** Findings a verifier confirmed (not merely claimed). */
  verifiedFindings?: number;
  /** Criteria an external blocker stops, by criterion id, with the reason. */
  blocked?: Record<string, string>;
}

export type CriterionStatus = "MET" | "NOT_MET" | "BLOCKED" | "UNKNOWN";
export type GoalGateStatus = "MET" | "NOT_MET" | "BLOCKED" | "NO_CONTRACT";

export interface CriterionResult {
  criterionId: string;
  kind: AcceptanceCriterionKind;
  /** The metric name, marker pattern, artifact glob, or `verified findings`. */
  subject: string;
  status: CriterionStatus;
  /** The metric value, matched marker key, matched artifact path or finding count; null when absent. */
  actual: number | string | null;
  /** What the criterion asks for, e.g. `>= 0.9`. */
  target: string;
  message: string;
}

export interface GoalGateResult {
  overallStatus: GoalGateStatus;
  /** True when every criterion is met, or when there is no contract (the gate is skipped). */
  passed: boolean;
  criteriaResults: CriterionResult[];
  metCount: number;
  totalCount: number;
  /** `<criterion id>: <reason>` for every blocked criterion. */
  blockers: string[];
  /** One line for people, e.g. `Goal criteria not met: 2/3 criteria passed`. */
  summary: string;
}

/**
 * Evaluates every acceptance criterion of `contract` against `evidence`. Without a contract the
 * gate is skipped and passes, so work planned before goal contracts existed still completes.
 * A criterion the evidence shows as met stays MET even if listed in `blocked`: the blocker evidently
 * did not stop it. An unreported metric is UNKNOWN, which counts as not met.
 * @throws ValidationError when the evidence is malformed: a non-finite metric, a negative or
 *   fractional finding count, or a blocker naming no criterion of the contract or giving no reason.
 */
export function evaluateGoalGate(contract: GoalContract | null | undefined, evidence: AttemptEvidence): GoalGateResult {
  if (!contract) {
    return {
      overallStatus: "NO_CONTRACT",
      passed: true,
      criteriaResults: [],
      metCount: 0,
      totalCount: 0,
      blockers: [],
      summary: "No goal contract: goal gate skipped",
    };
  }
  const normalized = normalizeEvidence(evidence);
  const blocked = checkBlocked(contract, evidence.blocked ?? {});
  const criteriaResults = contract.acceptanceCriteria.map((criterion): CriterionResult => {
    const evaluation = evaluateCriterion(criterion, normalized);
    const reason = blocked.get(criterion.id);
    const result = {
      criterionId: criterion.id,
      kind: criterion.kind,
      subject: describeSubject(criterion),
      target: describeTarget(criterion),
    };
    if (reason !== undefined && evaluation.status !== "MET") {
      return { ...result, status: "BLOCKED", actual: evaluation.actual, message: `blocked: ${reason}` };
    }
    return { ...result, ...evaluation };
  });
  const blockers = criteriaResults
    .filter((result) => result.status === "BLOCKED")
    .map((result) => `${result.criterionId}: ${blocked.get(result.criterionId) ?? ""}`);
  return summarize(criteriaResults, blockers);
}

function summarize(criteriaResults: CriterionResult[], blockers: string[]): GoalGateResult {
  const metCount = criteriaResults.filter((result) => result.status === "MET").length;
  const totalCount = criteriaResults.length;
  const tally = `${metCount}/${totalCount} criteria passed`;
  const base = { criteriaResults, metCount, totalCount, blockers };
  if (blockers.length > 0) {
    return { ...base, overallStatus: "BLOCKED", passed: false, summary: `Goal blocked (${blockers.join("; ")}): ${tally}` };
  }
  if (metCount === totalCount) {
    return { ...base, overallStatus: "MET", passed: true, summary: `Goal criteria met: ${tally}` };
  }
  return { ...base, overallStatus: "NOT_MET", passed: false, summary: `Goal criteria not met: ${tally}` };
}

function normalizeEvidence(evidence: AttemptEvidence): NormalizedEvidence {
  const parsed = parseMarkers(evidence.output ?? "");
  const metrics = new Map(Object.entries(metricsFromMarkers(parsed)));
  for (const [name, value] of Object.entries(evidence.metrics ?? {})) {
    if (!Number.isFinite(value)) {
      throw new ValidationError(`metrics.${name}`, "goal_gate.metric_not_finite", "must be a finite number");
    }
    metrics.set(name, value);
  }
  const findings = evidence.verifiedFindings ?? 0;
  if (!Number.isInteger(findings) || findings < 0) {
    throw new ValidationError("verifiedFindings", "goal_gate.verified_findings_invalid", "must be a non-negative integer");
  }
  // A reported metric is the structured form of its METRIC marker, so it satisfies marker_required too.
  const markerKeys = new Set([
    ...(evidence.markers ?? []).map(normalizeMarkerKey),
    ...parsed.map((marker) => marker.key),
    ...[...metrics.keys()].map((name) => `METRIC:${name}`),
  ]);
  return { metrics, markerKeys: [...markerKeys], artifacts: evidence.artifacts ?? [], verifiedFindings: findings };
}

function checkBlocked(contract: GoalContract, blocked: Record<string, string>): Map<string, string> {
  const ids = new Set(contract.acceptanceCriteria.map((criterion) => criterion.id));
  const reasons = new Map<string, string>();
  for (const [id, reason] of Object.entries(blocked)) {
    if (!ids.has(id)) {
      throw new ValidationError(`blocked.${id}`, "goal_gate.unknown_criterion", "names no criterion of the goal contract");
    }
    if (typeof reason !== "string" || reason.trim() === "") {
      throw new ValidationError(`blocked.${id}`, "goal_gate.blocker_reason_required", "must name the external blocker");
    }
    reasons.set(id, reason.trim());
  }
  return reasons;
}
