/**
 * Plain readers for what the goals page shows: the stored goal-gate evaluation (its JSON columns
 * read defensively, since rows may come from older writers or an import) and a contract's criteria
 * as sentences. No React here, so each rule has a unit test.
 */

export type CriterionStatus = "MET" | "NOT_MET" | "BLOCKED" | "UNKNOWN";

export interface CriterionView {
  criterionId: string;
  kind: string;
  subject: string;
  status: CriterionStatus;
  /** The reported value as text; `none` when nothing was reported. */
  actual: string;
  target: string;
  message: string;
}

export interface PivotView {
  shouldPivot: boolean;
  attemptsLeft: number | null;
  unachievable: boolean;
  suggestions: string[];
}

const STATUSES: readonly string[] = ["MET", "NOT_MET", "BLOCKED", "UNKNOWN"];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === "string" ? value : value === null || value === undefined ? "" : String(value));

/** A value as people read it: numbers to at most four decimals, nothing as `none`. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === "") return "none";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/** `NOT_MET` → `NOT MET`. */
export const statusLabel = (status: string): string => status.replaceAll("_", " ");

/** The per-criterion results stored on an evaluation; an entry that is not an object is skipped. */
export function readCriteriaResults(raw: unknown): CriterionView[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isRecord).map((entry) => ({
    criterionId: text(entry.criterionId),
    kind: text(entry.kind),
    subject: text(entry.subject),
    status: (STATUSES.includes(text(entry.status)) ? entry.status : "UNKNOWN") as CriterionStatus,
    actual: formatValue(entry.actual),
    target: text(entry.target),
    message: text(entry.message),
  }));
}

/** The pivot advice stored on an evaluation, or null when there is none. */
export function readPivot(raw: unknown): PivotView | null {
  if (!isRecord(raw)) return null;
  return {
    shouldPivot: raw.shouldPivot === true,
    attemptsLeft: typeof raw.attemptsLeft === "number" ? raw.attemptsLeft : null,
    unachievable: raw.unachievable === true,
    suggestions: Array.isArray(raw.suggestions) ? raw.suggestions.map(text).filter((s) => s !== "") : [],
  };
}

/** `attempt 2 of 3`, or `attempt 2` when the goal has no limit. */
export function attemptOf(number: number, max: number | null): string {
  return max === null ? `attempt ${number}` : `attempt ${number} of ${max}`;
}

/** The columns of an acceptance criterion the sentence needs. */
export interface CriterionSpec {
  kind: string;
  metric: string | null;
  op: string | null;
  target: number | null;
  marker: string | null;
  artifactPattern: string | null;
  minCount: number | null;
}

/** What an acceptance criterion asks for, in one line: `cv_accuracy_mean >= 0.8`, `marker [METRIC:baseline_*]`… */
export function describeCriterion(c: CriterionSpec): string {
  switch (c.kind) {
    case "metric_threshold":
      return `${c.metric ?? "?"} ${c.op ?? "?"} ${formatValue(c.target)}`;
    case "marker_required":
      return `marker [${c.marker ?? ""}]`;
    case "artifact_exists":
      return `an artifact matching ${c.artifactPattern ?? ""}`;
    case "finding_count":
      return `at least ${c.minCount ?? 1} verified finding${c.minCount === 1 ? "" : "s"}`;
    default:
      return c.kind;
  }
}
