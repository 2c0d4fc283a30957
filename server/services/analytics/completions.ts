import { rawAll, sqlFor } from "@/db/query";
import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";
import { ALWAYS, bucketSql, equalsIfSet, inRange, inSource, sessionModelOf } from "./filters";
import { reasonKindsThrough, rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { type ReasonCount, fillSeries, rate, topReasons } from "./shape";

export interface UnverifiedCompletionFigures {
  /** Tasks completed with no verification record (`verification = 'none'`: observed or imported). */
  count: number;
  /** Every source, zeros included, in the schema's order. */
  bySource: { source: (typeof SESSION_SOURCES)[number]; count: number }[];
}

/**
 * Completions nobody verified, by session source. Time: when the task was completed (its last
 * update when the orchestrator did not say). Agent: whose work it was — the claimant, else the
 * assignee — and model: that agent's, as its session recorded it. From the rollups (per day ×
 * source × agent × model) when they answer the filter, else from the tasks.
 */
export async function unverifiedCompletionFigures(db: DbOrTx, f: AnalyticsFilter): Promise<UnverifiedCompletionFigures> {
  const agent = sql`coalesce(t.claimed_by, t.assignee)`;
  const rows = await rawAll<{ source: (typeof SESSION_SOURCES)[number]; count: number }>(
    db,
    rollupsAnswer(f)
      ? sql`SELECT source, sum(n) AS count FROM analytics_rollups WHERE ${rollupScope(["unverified"], f, ["agent", "model"])} GROUP BY 1`
      : sql`
    SELECT s.source AS source, count(*) AS count FROM tasks t JOIN sessions s ON s.id = t.session_id
    WHERE t.status = 'completed' AND t.verification = 'none'
      AND ${inRange(sql`coalesce(t.completed_at, t.updated_at)`, f)} AND ${equalsIfSet(agent, f.agent)} AND ${equalsIfSet(sql`s.source`, f.source)}
      AND ${f.model === null ? ALWAYS : sql`${sessionModelOf(db, sql`s.models`, agent)} = ${f.model}`}
    GROUP BY 1`,
  );
  const bySource = new Map(rows.map((r) => [r.source, r.count]));
  return {
    count: rows.reduce((n, r) => n + r.count, 0),
    bySource: SESSION_SOURCES.map((source) => ({ source, count: bySource.get(source) ?? 0 })),
  };
}

export interface CompletionCheckFigures {
  total: number;
  accepted: number;
  rejected: number;
  acceptanceRate: number | null;
  series: { bucket: number; accepted: number; rejected: number }[];
  /** The reasons rejected checks gave, grouped by kind; `checks` counts each check once per kind. */
  topReasons: ReasonCount[];
}

export const TOP_REASONS = 10;

/**
 * Completion checks (the gate's runs and the orchestrators' recorded claims) accepted vs rejected,
 * over time, and the most common rejection reasons. Agent: who asked for the check. No model.
 */
export async function completionCheckFigures(db: DbOrTx, f: AnalyticsFilter): Promise<CompletionCheckFigures> {
  const where = sql`${inRange(sql`c.at`, f)} AND ${equalsIfSet(sql`c.actor`, f.agent)} AND ${inSource(sql`c.session_id`, f)}`;
  const rollups = rollupsAnswer(f);
  const rows = await rawAll<{ bucket: number; accepted: number; rejected: number }>(
    db,
    rollups
      ? sql`SELECT ${bucketSql(sql`day`, f.bucket)} AS bucket, sum(CASE WHEN k2 <> 0 THEN n ELSE 0 END) AS accepted, sum(CASE WHEN k2 = 0 THEN n ELSE 0 END) AS rejected
            FROM analytics_rollups WHERE ${rollupScope(["check"], f, ["agent"])} GROUP BY 1`
      : sql`
    SELECT ${bucketSql(sql`c.at`, f.bucket)} AS bucket, sum(CASE WHEN c.accepted THEN 1 ELSE 0 END) AS accepted, sum(CASE WHEN c.accepted THEN 0 ELSE 1 END) AS rejected
    FROM completion_checks c WHERE ${where} GROUP BY 1`,
  );
  const accepted = rows.reduce((n, r) => n + r.accepted, 0);
  const rejected = rows.reduce((n, r) => n + r.rejected, 0);
  return {
    total: accepted + rejected,
    accepted,
    rejected,
    acceptanceRate: rate(accepted, accepted + rejected),
    series: fillSeries(rows, f.bucket, (bucket) => ({ bucket, accepted: 0, rejected: 0 })),
    topReasons: rollups ? await reasonKindsFromRollups(db, f, where) : topReasons(await reasonsFromHistory(db, where), TOP_REASONS),
  };
}

/** Every reason of the rejected checks in scope, in check order (so a kind's example is its earliest wording). */
async function reasonsFromHistory(db: DbOrTx, where: SQL): Promise<{ checkId: number; reason: string }[]> {
  // The strings of each check's JSON array, in the array's order.
  const reasons = sqlFor(db, {
    sqlite: sql`SELECT c.id AS "checkId", r.value AS reason FROM completion_checks c, json_each(c.reasons) r
    WHERE NOT c.accepted AND r.type = 'text' AND ${where} ORDER BY c.id, r.id`,
    postgres: sql`SELECT c.id AS "checkId", r.value #>> '{}' AS reason FROM completion_checks c, jsonb_array_elements(c.reasons::jsonb) WITH ORDINALITY AS r(value, id)
    WHERE NOT c.accepted AND jsonb_typeof(r.value) = 'string' AND ${where} ORDER BY c.id, r.id`,
  });
  return await rawAll<{ checkId: number; reason: string }>(db, reasons);
}

/**
 * The same from `analytics_reason_kinds` (kept by `catchUpReasonKinds`), plus the checks written
 * since it last ran, read from the history.
 */
async function reasonKindsFromRollups(db: DbOrTx, f: AnalyticsFilter, where: SQL): Promise<ReasonCount[]> {
  const through = await reasonKindsThrough(db);
  const scope = [ALWAYS];
  if (f.from !== null) scope.push(sql`day >= ${f.from}`);
  if (f.to !== null) scope.push(sql`day <= ${f.to}`);
  if (f.source !== null) scope.push(sql`source = ${f.source}`);
  if (f.agent !== null) scope.push(sql`agent = ${f.agent}`);
  // The example of the row holding the earliest check: with one min() in the query, SQLite takes the
  // bare `example` from that row; PostgreSQL has no bare columns and picks it by order.
  const example = sqlFor(db, {
    sqlite: sql`example, min(example_check_id) AS first`,
    postgres: sql`(array_agg(example ORDER BY example_check_id))[1] AS example`,
  });
  const kinds = (
    await rawAll<{ reason: string; checks: number; example: string }>(
      db,
      sql`
    SELECT kind AS reason, sum(checks) AS checks, ${example}
    FROM analytics_reason_kinds WHERE ${sql.join(scope, sql` AND `)} GROUP BY kind`,
    )
  ).map(({ reason, checks, example }) => ({ reason, checks, example }));
  const recent = await reasonsFromHistory(db, sql`c.id > ${through} AND ${where}`);
  if (recent.length === 0) return kinds.sort((a, b) => b.checks - a.checks || a.reason.localeCompare(b.reason)).slice(0, TOP_REASONS);
  // Newer checks come after every classified one, so a kind's example stays the classified one's.
  const merged = new Map(kinds.map((k) => [k.reason, k]));
  for (const k of topReasons(recent, Number.POSITIVE_INFINITY)) {
    const known = merged.get(k.reason);
    merged.set(k.reason, known ? { ...known, checks: known.checks + k.checks } : k);
  }
  return [...merged.values()].sort((a, b) => b.checks - a.checks || a.reason.localeCompare(b.reason)).slice(0, TOP_REASONS);
}
