/**
 * One evaluator per acceptance-criterion kind, used by the goal gate (`goal-gate.ts`).
 */
import picomatch from "picomatch";
import type { AcceptanceCriterion, ComparisonOp } from "./goal-contract";
import type { CriterionResult } from "./goal-gate";

/** What an attempt showed, after the goal gate merged explicit evidence with parsed output. */
export interface NormalizedEvidence {
  metrics: ReadonlyMap<string, number>;
  markerKeys: readonly string[];
  artifacts: readonly string[];
  verifiedFindings: number;
}

/** Floating-point results are rarely bit-identical to a stated target, so equality allows this much. */
export const EQUALITY_TOLERANCE = 1e-9;

/** Applies a comparison operator; only `==` and `!=` use the tolerance, the ordering ops are exact. */
export function compare(actual: number, op: ComparisonOp, target: number): boolean {
  switch (op) {
    case ">=":
      return actual >= target;
    case ">":
      return actual > target;
    case "<=":
      return actual <= target;
    case "<":
      return actual < target;
    case "==":
      return Math.abs(actual - target) <= EQUALITY_TOLERANCE;
    case "!=":
      return Math.abs(actual - target) > EQUALITY_TOLERANCE;
  }
}

/** A human-readable statement of what the criterion asks for, e.g. `>= 0.9`. */
export function describeTarget(criterion: AcceptanceCriterion): string {
  switch (criterion.kind) {
    case "metric_threshold":
      return `${criterion.op ?? "?"} ${criterion.target ?? "?"}`;
    case "marker_required":
      return `[${criterion.marker ?? ""}]`;
    case "artifact_exists":
      return `artifact matching ${criterion.artifactPattern ?? ""}`;
    case "finding_count":
      return `>= ${criterion.minCount ?? 1} verified findings`;
  }
}

/** What the criterion is about: the metric, the marker pattern, the artifact glob, or `verified findings`. */
export function describeSubject(criterion: AcceptanceCriterion): string {
  switch (criterion.kind) {
    case "metric_threshold":
      return criterion.metric ?? "";
    case "marker_required":
      return normalizeMarkerKey(criterion.marker ?? "");
    case "artifact_exists":
      return criterion.artifactPattern ?? "";
    case "finding_count":
      return "verified findings";
  }
}

/** Markers may be written with or without their brackets; both mean the same key. */
export function normalizeMarkerKey(key: string): string {
  const trimmed = key.trim();
  return trimmed.startsWith("[") && trimmed.endsWith("]") ? trimmed.slice(1, -1).trim() : trimmed;
}

/** Whole-key, case-sensitive match where each `*` stands for any run of characters (including none). */
export function markerMatches(pattern: string, key: string): boolean {
  const source = pattern
    .split("*")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`).test(key);
}

/** Agents report paths in several spellings; compare them as forward-slash paths without `./`. */
export function normalizeArtifactPath(path: string): string {
  return path
    .trim()
    .replace(/\\/g, "/")
    .replace(/^(?:\.\/)+/, "");
}

/**
 * Glob match against reported artifact paths. A pattern without `/` matches the file name anywhere
 * (`*.pkl` finds `models/m.pkl`), as users mean "a model file", not "a model file at the root".
 */
export function artifactMatches(pattern: string, path: string): boolean {
  const normalized = normalizeArtifactPath(path);
  const isMatch = picomatch(pattern, { dot: true });
  if (pattern.includes("/")) return isMatch(normalized);
  return isMatch(normalized.slice(normalized.lastIndexOf("/") + 1));
}

type Evaluation = Pick<CriterionResult, "status" | "actual" | "message">;

/** Evaluates one criterion against the attempt's evidence (external blockers are applied by the caller). */
export function evaluateCriterion(criterion: AcceptanceCriterion, evidence: NormalizedEvidence): Evaluation {
  switch (criterion.kind) {
    case "metric_threshold":
      return evaluateMetricThreshold(criterion, evidence);
    case "marker_required":
      return evaluateMarkerRequired(criterion, evidence);
    case "artifact_exists":
      return evaluateArtifactExists(criterion, evidence);
    case "finding_count":
      return evaluateFindingCount(criterion, evidence);
  }
}

function evaluateMetricThreshold(criterion: AcceptanceCriterion, evidence: NormalizedEvidence): Evaluation {
  const metric = criterion.metric ?? "";
  const target = describeTarget(criterion);
  const actual = evidence.metrics.get(metric);
  if (actual === undefined) {
    return { status: "UNKNOWN", actual: null, message: `${metric} was not reported (needs ${target})` };
  }
  const met = compare(actual, criterion.op ?? ">=", criterion.target ?? Number.NaN);
  return {
    status: met ? "MET" : "NOT_MET",
    actual,
    message: `${metric} is ${actual}, ${met ? "meets" : "needs"} ${target}`,
  };
}

function evaluateMarkerRequired(criterion: AcceptanceCriterion, evidence: NormalizedEvidence): Evaluation {
  const pattern = normalizeMarkerKey(criterion.marker ?? "");
  const found = evidence.markerKeys.find((key) => markerMatches(pattern, key));
  if (found === undefined) return { status: "NOT_MET", actual: null, message: `no marker matches [${pattern}]` };
  return { status: "MET", actual: found, message: `marker [${found}] is present` };
}

function evaluateArtifactExists(criterion: AcceptanceCriterion, evidence: NormalizedEvidence): Evaluation {
  const pattern = criterion.artifactPattern ?? "";
  const found = evidence.artifacts.find((path) => artifactMatches(pattern, path));
  if (found === undefined) return { status: "NOT_MET", actual: null, message: `no artifact matches ${pattern}` };
  return { status: "MET", actual: found, message: `artifact ${found} matches ${pattern}` };
}

function evaluateFindingCount(criterion: AcceptanceCriterion, evidence: NormalizedEvidence): Evaluation {
  const needed = criterion.minCount ?? 1;
  const actual = evidence.verifiedFindings;
  const met = actual >= needed;
  return {
    status: met ? "MET" : "NOT_MET",
    actual,
    message: `${actual} verified finding${actual === 1 ? "" : "s"}, ${met ? "meets" : "needs"} at least ${needed}`,
  };
}
