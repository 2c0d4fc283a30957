/**
 * Pure shaping for the analytics figures: rates, percentiles, buckets, and the grouping of the
 * completion gate's rejection reasons. No I/O; the figure queries hand these their rows.
 */
import type { Bucket } from "./schemas";

export const DAY_MS = 86_400_000;

/** `part / whole`, or null when there is nothing to divide (a rate of nothing is not 0%). */
export function rate(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

/** The start (UTC midnight; Monday for weeks) of the bucket holding `at`, matching `bucketSql`. */
export function bucketStart(at: number, bucket: Bucket): number {
  const day = Math.floor(at / DAY_MS);
  // Epoch day 0 (1970-01-01) was a Thursday: shift by 3 so weeks start on Monday.
  return (bucket === "day" ? day : Math.floor((day + 3) / 7) * 7 - 3) * DAY_MS;
}

export function nextBucket(start: number, bucket: Bucket): number {
  return start + (bucket === "day" ? 1 : 7) * DAY_MS;
}

/** Most buckets a series is filled to; beyond that only the buckets with data are returned. */
export const MAX_FILLED_BUCKETS = 1000;

/**
 * A series with one point per bucket from the first to the last one that has data, the missing
 * ones made by `empty`, so a chart never draws a line across days with no data as if they did.
 */
export function fillSeries<T extends { bucket: number }>(points: readonly T[], bucket: Bucket, empty: (bucket: number) => T): T[] {
  const sorted = [...points].sort((a, b) => a.bucket - b.bucket);
  const first = sorted[0];
  const last = sorted.at(-1);
  if (!first || !last) return [];
  const span = (last.bucket - first.bucket) / ((bucket === "day" ? 1 : 7) * DAY_MS) + 1;
  if (span > MAX_FILLED_BUCKETS) return sorted;
  const byStart = new Map(sorted.map((p) => [p.bucket, p]));
  const out: T[] = [];
  for (let at = first.bucket; at <= last.bucket; at = nextBucket(at, bucket)) out.push(byStart.get(at) ?? empty(at));
  return out;
}

export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

/** The nearest-rank percentile of ascending `sorted`: the value at rank ⌈p/100 · n⌉. */
export function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? null;
}

/** Ranks (1-based) whose values give p50, p90 and p99 of `count` values, for a query that fetches only those rows. */
export function percentileRanks(count: number): { p50: number; p90: number; p99: number } {
  const rank = (p: number) => Math.max(1, Math.ceil((p / 100) * count));
  return { p50: rank(50), p90: rank(90), p99: rank(99) };
}

/** Percentiles from the values at the ranks `percentileRanks` asked for. */
export function percentilesFromRanks(count: number, valueAtRank: ReadonlyMap<number, number>): Percentiles {
  if (count === 0) return { count, p50: null, p90: null, p99: null };
  const ranks = percentileRanks(count);
  return { count, p50: valueAtRank.get(ranks.p50) ?? null, p90: valueAtRank.get(ranks.p90) ?? null, p99: valueAtRank.get(ranks.p99) ?? null };
}

/** Bins of the per-session criteria completion rate: ten of 10 points each, then exactly 100%. */
export const RATE_BINS = [...Array.from({ length: 10 }, (_, i) => ({ bin: i, label: `${i * 10}–${i * 10 + 9}%` })), { bin: 10, label: "100%" }];

/** The bin of a rate met/required (integer arithmetic, as the query computes it). */
export function rateBin(met: number, required: number): number {
  return Math.min(10, Math.floor((met * 10) / required));
}

const TASK_STATUS_WORDS = ["pending", "in progress", "claimed", "verified", "blocked"];

/**
 * The kind of a completion-gate rejection reason, with the counts, task lists and names that make
 * every occurrence different taken out, so "Only 2/5 criteria met" and "Only 1/3 criteria met" are
 * counted together. Reasons the gate did not word (imported verdicts) are their own kind.
 */
export function reasonKind(reason: string): string {
  const text = reason.trim();
  if (text.startsWith("No required success criteria recorded")) return "No required success criteria recorded";
  if (/^Only \d+\/\d+ criteria met$/.test(text)) return "Not every required criterion met";
  const criterion = /^Criterion ".*" is not met: (.*)$/s.exec(text);
  if (criterion) {
    const why = criterion[1] ?? "";
    if (why.startsWith("blocked")) return "Criterion blocked without an external blocker";
    if (why.startsWith("claimed")) return "Criterion claimed but the verifier disagreed";
    return `Criterion ${why}`;
  }
  const tasks = /^\d+ tasks? (?:is|are) ([a-z ]+): /.exec(text);
  if (tasks && TASK_STATUS_WORDS.includes(tasks[1] ?? "")) return `Tasks ${tasks[1]}`;
  if (/^\d+ tasks? (?:was|were) completed without verification/.test(text)) return "Tasks completed without verification";
  const goal = /^Goal ".*" has not passed both gates \(latest verdict: (.*)\)$/s.exec(text);
  if (goal) return `Goal has not passed both gates (${goal[1]})`;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export interface ReasonCount {
  reason: string;
  /** Rejected checks that gave this reason at least once. */
  checks: number;
  /** One reason as it was worded, for a tooltip. */
  example: string;
}

/** Group (check id, reason) pairs by kind, counting each check once per kind; largest first. */
export function topReasons(rows: readonly { checkId: number; reason: string }[], limit: number): ReasonCount[] {
  const kinds = new Map<string, { checks: Set<number>; example: string }>();
  for (const { checkId, reason } of rows) {
    const kind = reasonKind(reason);
    const entry = kinds.get(kind) ?? { checks: new Set<number>(), example: reason };
    entry.checks.add(checkId);
    kinds.set(kind, entry);
  }
  return [...kinds.entries()]
    .map(([reason, { checks, example }]) => ({ reason, checks: checks.size, example }))
    .sort((a, b) => b.checks - a.checks || a.reason.localeCompare(b.reason))
    .slice(0, limit);
}

/** An agent label's type: `developer_2` → `developer`, the key a session's `models` map uses (as `sessionModelOf` computes it). */
export function agentTypeOf(label: string): string {
  return label.replace(/(?<!\d)\d+$/, "").replace(/(?<!_)_+$/, "");
}

export interface ClaimCounts {
  claims: number;
  blocked: number;
}

/** Add up claim counts by a key, keeping the key's first-seen order; each group gets its false-completion rate. */
export function claimRatesBy<R extends ClaimCounts, K>(rows: readonly R[], key: (row: R) => K): (ClaimCounts & { key: K; rate: number | null })[] {
  const groups = new Map<K, ClaimCounts>();
  for (const row of rows) {
    const k = key(row);
    const sums = groups.get(k) ?? { claims: 0, blocked: 0 };
    sums.claims += row.claims;
    sums.blocked += row.blocked;
    groups.set(k, sums);
  }
  return [...groups.entries()].map(([k, sums]) => ({ key: k, ...sums, rate: rate(sums.blocked, sums.claims) }));
}

/**
 * Nearest-rank p50/p90/p99 from a histogram: `counts` of values per whole `value` (e.g. seconds),
 * in any order. Exact for values of that resolution, without fetching one row per value.
 */
export function percentilesOfHistogram(counts: readonly { value: number; count: number }[]): Percentiles {
  const sorted = [...counts].sort((a, b) => a.value - b.value);
  const count = sorted.reduce((n, c) => n + c.count, 0);
  const ranks = percentileRanks(count);
  const found = new Map<number, number>();
  let seen = 0;
  for (const { value, count: n } of sorted) {
    for (const rank of [ranks.p50, ranks.p90, ranks.p99]) if (rank > seen && rank <= seen + n) found.set(rank, value);
    seen += n;
  }
  return percentilesFromRanks(count, found);
}

/**
 * Called by a figure between two of its heavy queries: the overview lets other requests run there
 * (overview.ts), and does not count the pause in the figure's time.
 */
export type Pause = () => Promise<void>;
