import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { bucketSql, inRange } from "./filters";
import type { AnalyticsFilter } from "./schemas";
import { RATE_BINS, fillSeries, rate } from "./shape";

export interface CriteriaRatePoint {
  /** Bucket start, epoch ms (UTC). */
  bucket: number;
  sessions: number;
  required: number;
  met: number;
  /** Mean of the sessions' own rates (each session weighs the same). */
  meanSessionRate: number | null;
  /** met / required over the bucket's sessions (each criterion weighs the same). */
  overallRate: number | null;
}

export interface CriteriaFigures {
  /** Sessions with at least one required criterion (a rate of nothing is left out, not counted as 0%). */
  sessions: number;
  required: number;
  met: number;
  meanSessionRate: number | null;
  overallRate: number | null;
  /** How many sessions reached each rate: bins of ten points, then exactly 100%. */
  distribution: { bin: number; label: string; sessions: number }[];
  series: CriteriaRatePoint[];
  /** The criteria most often blocked / failed, by text; the verifier's finding counts over the claim. */
  topBlocked: { criterion: string; count: number }[];
  topFailed: { criterion: string; count: number }[];
}

export const TOP_CRITERIA = 10;

/**
 * Criteria completion rate (required met / required) per session, from the per-session rollups the
 * triggers keep on `sessions` — so it costs one pass over sessions, never a count of criteria. A
 * criterion counts as met when the verifier found it met, or when only the claimant reported it met.
 * Criteria carry no time of their own: the range and the buckets use the session's start.
 */
export function criteriaFigures(db: DbOrTx, f: AnalyticsFilter): CriteriaFigures {
  const where = sql`criteria_required > 0 AND ${f.source === null ? sql`1` : sql`source = ${f.source}`} AND ${inRange(sql`started_at`, f)}`;
  const bucket = bucketSql(sql`started_at`, f.bucket);
  const rows = db.all<{ bucket: number; sessions: number; required: number; met: number; rateSum: number }>(sql`
    SELECT ${bucket} AS bucket, count(*) AS sessions, sum(criteria_required) AS required, sum(criteria_required_met) AS met,
           sum(1.0 * criteria_required_met / criteria_required) AS rateSum
    FROM sessions WHERE ${where} GROUP BY 1`);
  const bins = db.all<{ bin: number; sessions: number }>(sql`
    SELECT min(10, criteria_required_met * 10 / criteria_required) AS bin, count(*) AS sessions FROM sessions WHERE ${where} GROUP BY 1`);

  const series = fillSeries(
    rows.map((r) => ({ bucket: r.bucket, sessions: r.sessions, required: r.required, met: r.met, meanSessionRate: rate(r.rateSum, r.sessions), overallRate: rate(r.met, r.required) })),
    f.bucket,
    (b) => ({ bucket: b, sessions: 0, required: 0, met: 0, meanSessionRate: null, overallRate: null }),
  );
  const total = rows.reduce((t, r) => ({ sessions: t.sessions + r.sessions, required: t.required + r.required, met: t.met + r.met, rateSum: t.rateSum + r.rateSum }), { sessions: 0, required: 0, met: 0, rateSum: 0 });
  const perBin = new Map(bins.map((b) => [b.bin, b.sessions]));
  return {
    sessions: total.sessions,
    required: total.required,
    met: total.met,
    meanSessionRate: rate(total.rateSum, total.sessions),
    overallRate: rate(total.met, total.required),
    distribution: RATE_BINS.map(({ bin, label }) => ({ bin, label, sessions: perBin.get(bin) ?? 0 })),
    series,
    ...topCriteria(db, f),
  };
}

function topCriteria(db: DbOrTx, f: AnalyticsFilter): Pick<CriteriaFigures, "topBlocked" | "topFailed"> {
  const sessionFilter =
    f.source === null && f.from === null && f.to === null
      ? sql`1`
      : sql`c.session_id IN (SELECT id FROM sessions WHERE ${f.source === null ? sql`1` : sql`source = ${f.source}`} AND ${inRange(sql`started_at`, f)})`;
  const rows = db.all<{ status: "blocked" | "failed"; criterion: string; count: number }>(sql`
    SELECT coalesce(c.verifier_status, c.status) AS status, c.criterion AS criterion, count(*) AS count
    FROM success_criteria c
    WHERE (c.status IN ('blocked', 'failed') OR c.verifier_status IN ('blocked', 'failed'))
      AND coalesce(c.verifier_status, c.status) IN ('blocked', 'failed') AND ${sessionFilter}
    GROUP BY 1, 2 ORDER BY 3 DESC, 2 ASC`);
  const top = (status: "blocked" | "failed") => rows.filter((r) => r.status === status).slice(0, TOP_CRITERIA).map(({ criterion, count }) => ({ criterion, count }));
  return { topBlocked: top("blocked"), topFailed: top("failed") };
}
