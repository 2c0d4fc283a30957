/**
 * Output markers: the structured lines an agent prints so that a machine can read its results,
 * e.g. `[METRIC:cv_accuracy_mean] 0.85`, `[FINDING] churn rises with tenure`, `[STAT:ci] 0.02-0.05`.
 * The goal gate reads metrics and marker keys from them.
 */

export interface ParsedMarker {
  /** Upper-case marker type, e.g. `METRIC`. */
  type: string;
  /** The part after the colon, e.g. `cv_accuracy_mean`; null for a bare `[FINDING]`. */
  name: string | null;
  /** `TYPE:name`, or `TYPE` when there is no name — what `marker_required` criteria match. */
  key: string;
  /** The rest of the line, trimmed. */
  value: string;
  /** The value's leading number, or null when the value does not start with one. */
  numeric: number | null;
  /** 1-based line number in the parsed text. */
  line: number;
}

// Types are upper-case so that Markdown links (`[see here](…)`) and checkboxes (`[x]`) are not markers.
const MARKER_LINE = /^\s*\[([A-Z][A-Z0-9_]*)(?::([A-Za-z0-9_.\-/]+))?\](.*)$/;

// The first whitespace-separated token must be a whole number: "0.85 (std 0.02)" gives 0.85, but
// "0.02-0.05" (a range) and "1,000" give nothing rather than a misleading part of themselves.
const LEADING_NUMBER = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(%?)(?:\s|$)/;

/**
 * Reads the leading number of a marker value. A percentage is returned as a fraction ("85%" → 0.85)
 * because goal contracts state targets as fractions ("90% accuracy" is `>= 0.90`).
 */
export function parseMarkerNumber(value: string): number | null {
  const match = LEADING_NUMBER.exec(value.trim());
  if (!match) return null;
  const parsed = Number(match[1]);
  if (!Number.isFinite(parsed)) return null;
  return match[2] === "%" ? parsed / 100 : parsed;
}

/** Parses every marker line of `text`, in order; other lines are ignored. */
export function parseMarkers(text: string): ParsedMarker[] {
  const markers: ParsedMarker[] = [];
  const lines = text.split(/\r?\n|\r/);
  lines.forEach((lineText, index) => {
    const match = MARKER_LINE.exec(lineText);
    if (!match) return;
    const type = match[1] ?? "";
    const name = match[2] ?? null;
    const value = (match[3] ?? "").trim();
    markers.push({
      type,
      name,
      key: name === null ? type : `${type}:${name}`,
      value,
      numeric: parseMarkerNumber(value),
      line: index + 1,
    });
  });
  return markers;
}

/**
 * The numeric `METRIC:name` values among `markers`. When a metric is printed more than once the
 * last value wins, since a later line reports a later (e.g. re-run) result.
 */
export function metricsFromMarkers(markers: readonly ParsedMarker[]): Record<string, number> {
  const metrics = new Map<string, number>();
  for (const marker of markers) {
    if (marker.type === "METRIC" && marker.name !== null && marker.numeric !== null) {
      metrics.set(marker.name, marker.numeric);
    }
  }
  // fromEntries defines own properties, so a metric named `__proto__` cannot reach the prototype.
  return Object.fromEntries(metrics);
}
