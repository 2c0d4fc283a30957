import { rawAll, rawValues, sqlFor } from "@/db/query";
import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { ALWAYS, bucketSql, inRange } from "./filters";
import { rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { type Pause, RATE_BINS, fillSeries, rate } from "./shape";

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
 * Sessions with a required criterion per bucket and number required: how many, and their met
 * criteria summed (integers, so both sources give the same rates to the last bit).
 */
interface SessionGroup {
  bucket: number;
  required: number;
  sessions: number;
  met: number;
}

/**
 * Criteria completion rate (required met / required) per session, from the per-session counters
 * the triggers keep on `sessions`; read from the rollups (sessions counted per start day × source ×
 * required × met, a few thousand rows for any number of sessions) when they answer the filter, else
 * from `sessions`. A criterion counts as met when the verifier found it met, or when only the
 * claimant reported it met. Criteria carry no time of their own: the range and the buckets use the
 * session's start.
 */
export async function criteriaFigures(db: DbOrTx, f: AnalyticsFilter, pause: Pause = async () => {}): Promise<CriteriaFigures> {
  const rollups = rollupsAnswer(f);
  const { groups, bins } = rollups ? await fromRollups(db, f) : await fromSessions(db, f);
  // The rates and the top criteria are two queries of a few ms each: others may run between them.
  await pause();
  // Summed in one order whichever table they came from.
  groups.sort((a, b) => a.bucket - b.bucket || a.required - b.required);
  const byBucket = new Map<number, { bucket: number; sessions: number; required: number; met: number; rateSum: number }>();
  for (const g of groups) {
    const b = byBucket.get(g.bucket) ?? { bucket: g.bucket, sessions: 0, required: 0, met: 0, rateSum: 0 };
    b.sessions += g.sessions;
    b.required += g.sessions * g.required;
    b.met += g.met;
    // Σ over sessions of met / required, for the sessions that required this many.
    b.rateSum += g.met / g.required;
    byBucket.set(g.bucket, b);
  }
  const rows = [...byBucket.values()];
  const series = fillSeries(
    rows.map((r) => ({
      bucket: r.bucket,
      sessions: r.sessions,
      required: r.required,
      met: r.met,
      meanSessionRate: rate(r.rateSum, r.sessions),
      overallRate: rate(r.met, r.required),
    })),
    f.bucket,
    (b) => ({ bucket: b, sessions: 0, required: 0, met: 0, meanSessionRate: null, overallRate: null }),
  );
  const total = rows.reduce(
    (t, r) => ({ sessions: t.sessions + r.sessions, required: t.required + r.required, met: t.met + r.met, rateSum: t.rateSum + r.rateSum }),
    { sessions: 0, required: 0, met: 0, rateSum: 0 },
  );
  const perBin = new Map(bins);
  const topCriteriaRows = rollups ? await topCriteriaFromRollups(db, f) : await topCriteria(db, f);
  return {
    sessions: total.sessions,
    required: total.required,
    met: total.met,
    meanSessionRate: rate(total.rateSum, total.sessions),
    overallRate: rate(total.met, total.required),
    distribution: RATE_BINS.map(({ bin, label }) => ({ bin, label, sessions: perBin.get(bin) ?? 0 })),
    series,
    ...topCriteriaRows,
  };
}

/** Rows as arrays: (kind 0: bucket, required, sessions, Σ met) and (kind 1: rate bin, sessions), in one statement. */
function split(rows: [number, number, number, number | null, number | null][]): { groups: SessionGroup[]; bins: [number, number][] } {
  const groups: SessionGroup[] = [];
  const bins: [number, number][] = [];
  for (const [kind, a, b, c, d] of rows) {
    if (kind === 0) groups.push({ bucket: a, required: b, sessions: c ?? 0, met: d ?? 0 });
    else bins.push([a, b]);
  }
  return { groups, bins };
}

/** The rate bin of `met` of `required` (integers): tenths, 10 for 100% (`rateBin` in shape.ts). */
function rateBinSql(db: object, met: SQL, required: SQL): SQL {
  return sqlFor(db, { sqlite: sql`min(10, ${met} * 10 / ${required})`, postgres: sql`LEAST(10, ${met} * 10 / ${required})` });
}

// Each column named: PostgreSQL rows are objects, and unnamed columns would share a name.
async function fromSessions(db: DbOrTx, f: AnalyticsFilter) {
  const where = sql`criteria_required > 0 AND ${f.source === null ? ALWAYS : sql`source = ${f.source}`} AND ${inRange(sql`started_at`, f)}`;
  return split(
    await rawValues(
      db,
      sql`
    SELECT 0 AS kind, ${bucketSql(sql`started_at`, f.bucket)} AS a, criteria_required AS b, count(*) AS c, sum(criteria_required_met) AS d FROM sessions WHERE ${where} GROUP BY 2, 3
    UNION ALL SELECT 1, ${rateBinSql(db, sql`criteria_required_met`, sql`criteria_required`)}, count(*), NULL, NULL FROM sessions WHERE ${where} GROUP BY 2`,
    ),
  );
}

async function fromRollups(db: DbOrTx, f: AnalyticsFilter) {
  const scope = rollupScope(["criteria"], f, []);
  return split(
    await rawValues(
      db,
      sql`
    SELECT 0 AS kind, ${bucketSql(sql`day`, f.bucket)} AS a, k2 AS b, sum(n) AS c, sum(n * k3) AS d FROM analytics_rollups WHERE ${scope} GROUP BY 2, 3 HAVING sum(n) > 0
    UNION ALL SELECT 1, ${rateBinSql(db, sql`k3`, sql`k2`)}, sum(n), NULL, NULL FROM analytics_rollups WHERE ${scope} GROUP BY 2 HAVING sum(n) > 0`,
    ),
  );
}

type TopCriteria = Pick<CriteriaFigures, "topBlocked" | "topFailed">;

function top(rows: { status: string; criterion: string; count: number }[]): TopCriteria {
  const of = (status: "blocked" | "failed") =>
    rows
      .filter((r) => r.status === status)
      .slice(0, TOP_CRITERIA)
      .map(({ criterion, count }) => ({ criterion, count }));
  return { topBlocked: of("blocked"), topFailed: of("failed") };
}

async function topCriteria(db: DbOrTx, f: AnalyticsFilter): Promise<TopCriteria> {
  const sessionFilter =
    f.source === null && f.from === null && f.to === null
      ? ALWAYS
      : sql`c.session_id IN (SELECT id FROM sessions WHERE ${f.source === null ? ALWAYS : sql`source = ${f.source}`} AND ${inRange(sql`started_at`, f)})`;
  return top(
    await rawAll<{ status: "blocked" | "failed"; criterion: string; count: number }>(
      db,
      sql`
    SELECT coalesce(c.verifier_status, c.status) AS status, c.criterion AS criterion, count(*) AS count
    FROM success_criteria c
    WHERE (c.status IN ('blocked', 'failed') OR c.verifier_status IN ('blocked', 'failed'))
      AND coalesce(c.verifier_status, c.status) IN ('blocked', 'failed') AND ${sessionFilter}
    GROUP BY 1, 2 ORDER BY 3 DESC, ${byteOrder(db, 2, sql`c.criterion`)}`,
    ),
  );
}

/**
 * Ascending by the text in output column `position` (`expr`), in the order of its bytes as SQLite's
 * BINARY collation has it, whatever the PostgreSQL database's locale (a collated term is an
 * expression there, not a column's position).
 */
function byteOrder(db: object, position: number, expr: SQL): SQL {
  return sqlFor(db, { sqlite: sql.raw(`${position} ASC`), postgres: sql`${expr} COLLATE "C" ASC` });
}

/** The same from the rollups: criteria found blocked / failed per text, on their session's start day. */
async function topCriteriaFromRollups(db: DbOrTx, f: AnalyticsFilter): Promise<TopCriteria> {
  return top(
    await rawAll<{ status: string; criterion: string; count: number }>(
      db,
      sql`
    SELECT substr(figure, 11) AS status, k1 AS criterion, sum(n) AS count
    FROM analytics_rollups WHERE ${rollupScope(["criterion_blocked", "criterion_failed"], f, [])}
    GROUP BY figure, k1 HAVING sum(n) > 0 ORDER BY 3 DESC, ${byteOrder(db, 2, sql`k1`)}`,
    ),
  );
}
