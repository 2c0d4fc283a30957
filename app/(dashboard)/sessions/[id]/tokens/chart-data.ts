/**
 * Token figures shaped for the charts and tables (STYLE.md §10): plain functions over what
 * `log.tokenSummary` and `log.tokensOverTime` return, so the numbers a chart draws are tested.
 */

export const BUCKETS = ["minute", "hour", "day"] as const;
export type Bucket = (typeof BUCKETS)[number];
/** What the period picker offers: a bucket, or `auto` (the finest that keeps the chart readable). */
export type BucketChoice = Bucket | "auto";

const BUCKET_MS: Record<Bucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** Most periods `auto` puts on the chart before it moves to a coarser bucket. */
export const AUTO_MAX_PERIODS = 90;

/** Rows that did not say which agent or model they were for. */
export const UNNAMED = "(not given)";

export interface SummaryInput {
  groups: readonly { key: string | null; tokens: number; entries: number }[];
  total: number;
}

export interface GroupRow {
  name: string;
  tokens: number;
  entries: number;
  /** Percent of the session's tokens, one decimal. */
  share: number;
}

export interface GroupTable {
  rows: GroupRow[];
  tokens: number;
  entries: number;
}

/** Tokens per agent (or model), largest first, each with its share of the total. */
export function shapeGroups(summary: SummaryInput): GroupTable {
  const tokens = summary.groups.reduce((sum, group) => sum + group.tokens, 0);
  const rows = summary.groups
    .map((group) => ({
      name: group.key ?? UNNAMED,
      tokens: group.tokens,
      entries: group.entries,
      share: tokens === 0 ? 0 : Math.round((group.tokens / tokens) * 1000) / 10,
    }))
    .sort((a, b) => b.tokens - a.tokens || a.name.localeCompare(b.name));
  return { rows, tokens, entries: summary.groups.reduce((sum, group) => sum + group.entries, 0) };
}

export interface BucketInput {
  start: Date;
  tokens: number;
  cumulative: number;
  byAgentType: Record<string, number>;
}

export interface TimeRow {
  /** Start of the period, epoch ms (UTC). */
  start: number;
  label: string;
  tokens: number;
  cumulative: number;
  /** Every agent of the chart, 0 where it used nothing, so stacked bars line up. */
  byAgent: Record<string, number>;
}

export interface TimeSeries {
  rows: TimeRow[];
  /** Agents by their total, largest first: the stacking and legend order. */
  agents: string[];
}

/**
 * Minute buckets (as `log.tokensOverTime` returns them) summed into hours or days, with the running
 * total recomputed, so the picker changes the period without another request.
 */
export function rebucket(minutes: readonly BucketInput[], bucket: Bucket): BucketInput[] {
  const size = BUCKET_MS[bucket];
  const periods = new Map<number, BucketInput>();
  for (const m of [...minutes].sort((a, b) => a.start.getTime() - b.start.getTime())) {
    const start = Math.floor(m.start.getTime() / size) * size;
    const period = periods.get(start) ?? { start: new Date(start), tokens: 0, cumulative: 0, byAgentType: {} };
    period.tokens += m.tokens;
    for (const [agent, n] of Object.entries(m.byAgentType)) period.byAgentType[agent] = (period.byAgentType[agent] ?? 0) + n;
    periods.set(start, period);
  }
  let cumulative = 0;
  return [...periods.values()].map((period) => ({ ...period, cumulative: (cumulative += period.tokens) }));
}

/** The finest bucket that gives at most AUTO_MAX_PERIODS periods with tokens. */
export function autoBucket(minutes: readonly BucketInput[]): Bucket {
  return BUCKETS.find((bucket) => bucket === "day" || rebucket(minutes, bucket).length <= AUTO_MAX_PERIODS)!;
}

/** A period's start in UTC, as precise as the bucket: `2026-11-21`, `2026-11-21 14:00`. */
export function bucketLabel(start: number, bucket: Bucket): string {
  const iso = new Date(start).toISOString();
  return bucket === "day" ? iso.slice(0, 10) : iso.slice(0, 16).replace("T", " ");
}

/** Periods in time order with tokens per agent, the period's total and the running total. */
export function shapeOverTime(buckets: readonly BucketInput[], bucket: Bucket): TimeSeries {
  const totals = new Map<string, number>();
  for (const b of buckets) for (const [agent, n] of Object.entries(b.byAgentType)) totals.set(agent, (totals.get(agent) ?? 0) + n);
  const agents = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)! || a.localeCompare(b));
  const rows = [...buckets]
    .sort((a, b) => a.start.getTime() - b.start.getTime())
    .map((b) => ({
      start: b.start.getTime(),
      label: bucketLabel(b.start.getTime(), bucket),
      tokens: b.tokens,
      cumulative: b.cumulative,
      byAgent: Object.fromEntries(agents.map((agent) => [agent, b.byAgentType[agent] ?? 0])),
    }));
  return { rows, agents };
}

const NUMBER = new Intl.NumberFormat("en-US");

/** `12,345`: one locale on the server and in the browser, so hydration matches. */
export const formatTokens = (n: number): string => NUMBER.format(n);

/** The period named in the URL, or `auto`. */
export function readBucket(value: string | string[] | undefined): BucketChoice {
  const first = Array.isArray(value) ? value[0] : value;
  return (BUCKETS as readonly string[]).includes(first ?? "") ? (first as Bucket) : "auto";
}
