import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { SESSION_SOURCES } from "@/db/schema/enums";
import { bucketSql, equalsIfSet, inRange, inSource, sessionModelOf } from "./filters";
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
 * assignee — and model: that agent's, as its session recorded it.
 */
export function unverifiedCompletionFigures(db: DbOrTx, f: AnalyticsFilter): UnverifiedCompletionFigures {
  const agent = sql`coalesce(t.claimed_by, t.assignee)`;
  const rows = db.all<{ source: (typeof SESSION_SOURCES)[number]; count: number }>(sql`
    SELECT s.source AS source, count(*) AS count FROM tasks t JOIN sessions s ON s.id = t.session_id
    WHERE t.status = 'completed' AND t.verification = 'none'
      AND ${inRange(sql`coalesce(t.completed_at, t.updated_at)`, f)} AND ${equalsIfSet(agent, f.agent)} AND ${equalsIfSet(sql`s.source`, f.source)}
      AND ${f.model === null ? sql`1` : sql`${sessionModelOf(sql`s.models`, agent)} = ${f.model}`}
    GROUP BY 1`);
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
export function completionCheckFigures(db: DbOrTx, f: AnalyticsFilter): CompletionCheckFigures {
  const where = sql`${inRange(sql`c.at`, f)} AND ${equalsIfSet(sql`c.actor`, f.agent)} AND ${inSource(sql`c.session_id`, f)}`;
  const rows = db.all<{ bucket: number; accepted: number; rejected: number }>(sql`
    SELECT ${bucketSql(sql`c.at`, f.bucket)} AS bucket, sum(c.accepted) AS accepted, sum(NOT c.accepted) AS rejected
    FROM completion_checks c WHERE ${where} GROUP BY 1`);
  const reasons = db.all<{ checkId: number; reason: string }>(sql`
    SELECT c.id AS checkId, r.value AS reason FROM completion_checks c, json_each(c.reasons) r
    WHERE NOT c.accepted AND r.type = 'text' AND ${where}`);
  const accepted = rows.reduce((n, r) => n + r.accepted, 0);
  const rejected = rows.reduce((n, r) => n + r.rejected, 0);
  return {
    total: accepted + rejected,
    accepted,
    rejected,
    acceptanceRate: rate(accepted, accepted + rejected),
    series: fillSeries(rows, f.bucket, (bucket) => ({ bucket, accepted: 0, rejected: 0 })),
    topReasons: topReasons(reasons, TOP_REASONS),
  };
}
