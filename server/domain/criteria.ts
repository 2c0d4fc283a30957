/**
 * Success criteria (000): the session's contract of what "done" means. The criterion text never
 * changes; a claimant (the PM) reports status/actual/evidence and a verifier may record a finding
 * beside it. Where they disagree, the verifier wins.
 */
import { ValidationError } from "./errors";

export const CRITERION_STATUSES = ["pending", "met", "blocked", "failed"] as const;
export type CriterionStatus = (typeof CRITERION_STATUSES)[number];

export const MAX_CRITERION_LENGTH = 2000;
export const MAX_CRITERION_TEXT_FIELD = 20_000;

export interface CriterionInput {
  criterion: string;
  status?: CriterionStatus;
  actual?: string | null;
  evidence?: string | null;
  requiredForCompletion?: boolean;
  /** Order in the list (1 first); unset sorts last. */
  priority?: number | null;
  /** Fields the orchestrator attached that have no column, kept as given. */
  metadata?: Record<string, unknown> | null;
  /** The criterion this one replaces (a changed goal is a new criterion). */
  supersedes?: string | null;
}

export interface CriterionState {
  criterion: string;
  status: CriterionStatus;
  actual: string | null;
  evidence: string | null;
  requiredForCompletion: boolean;
  verifierStatus: CriterionStatus | null;
  verifierActual?: string | null;
  verifierEvidence?: string | null;
}

export function isCriterionStatus(value: string): value is CriterionStatus {
  return (CRITERION_STATUSES as readonly string[]).includes(value);
}

/**
 * Validate a whole list before anything is written (saving is all-or-nothing). Duplicates inside
 * one list are refused: the UPSERT is for saving the same list again, not for two rows in one call.
 */
export function validateCriteriaList(list: readonly CriterionInput[]): CriterionInput[] {
  if (list.length === 0) throw new ValidationError("criteria", "criteria.empty_list", "at least one criterion is required");
  const seen = new Set<string>();
  return list.map((item, i) => {
    const criterion = requireText(item.criterion, `criteria[${i}].criterion`, MAX_CRITERION_LENGTH);
    if (seen.has(criterion)) {
      throw new ValidationError(`criteria[${i}].criterion`, "criteria.duplicate_in_list", `"${criterion}" appears twice in the list`);
    }
    seen.add(criterion);
    if (item.status !== undefined && !isCriterionStatus(item.status)) {
      throw new ValidationError(`criteria[${i}].status`, "criteria.status_enum", `must be one of ${CRITERION_STATUSES.join(", ")}`);
    }
    const supersedes =
      item.supersedes === undefined || item.supersedes === null ? null : requireText(item.supersedes, `criteria[${i}].supersedes`, MAX_CRITERION_LENGTH);
    if (supersedes === criterion) {
      throw new ValidationError(`criteria[${i}].supersedes`, "criteria.supersedes_self", "a criterion cannot supersede itself");
    }
    return {
      ...item,
      criterion,
      actual: optionalText(item.actual, `criteria[${i}].actual`),
      evidence: optionalText(item.evidence, `criteria[${i}].evidence`),
      supersedes,
    };
  });
}

function requireText(value: string, field: string, max: number): string {
  const trimmed = typeof value === "string" ? value.trim() : "";
  if (trimmed.length === 0) throw new ValidationError(field, "text.required", "must not be empty");
  if (trimmed.length > max) throw new ValidationError(field, "text.too_long", `at most ${max} characters`);
  return trimmed;
}

function optionalText(value: string | null | undefined, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > MAX_CRITERION_TEXT_FIELD) throw new ValidationError(field, "text.too_long", `at most ${MAX_CRITERION_TEXT_FIELD} characters`);
  return value;
}

/** The status the gate trusts: the verifier's finding when there is one, otherwise the claim. */
export function effectiveStatus(c: Pick<CriterionState, "status" | "verifierStatus">): CriterionStatus {
  return c.verifierStatus ?? c.status;
}

/** "PM says met, validator says failed": the claim and the verifier's finding disagree. */
export function hasDiscrepancy(c: Pick<CriterionState, "status" | "verifierStatus">): boolean {
  return c.verifierStatus !== null && c.verifierStatus !== c.status;
}

/**
 * Path B (000): a required criterion may stand `blocked` only when its evidence names the external
 * blocker (a service outage, a missing credential…), so the gate can tell "beyond our control"
 * from "not done".
 */
export function isExternallyBlocked(c: CriterionState): boolean {
  if (effectiveStatus(c) !== "blocked") return false;
  // The PM's evidence names a blocker only when the PM also said blocked: evidence for "met" is not.
  const claimEvidence = c.status === "blocked" ? c.evidence : null;
  const evidence = (c.verifierStatus === "blocked" ? (c.verifierEvidence ?? claimEvidence) : claimEvidence) ?? "";
  return evidence.trim().length > 0;
}
