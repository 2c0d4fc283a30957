import { rawGet, rawValues, sqlFor } from "@/db/query";
import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { ALWAYS, equalsIfSet, inRange, inSource, sessionModelOf } from "./filters";
import { allTime, rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { type Percentiles, percentilesOfHistogram } from "./shape";

export interface BlockedTimeFigures {
  /** Time from entering `blocked` to leaving it (an approved reset, or a reported status): percentiles in ms to the whole second, the total exact. */
  resolved: Percentiles & { totalMs: number };
  /** Tasks blocked now (their wait has not ended), among those the filters select. */
  open: number;
  /** Approved resets (blocked → pending), and how many tasks they concern. */
  resets: number;
  tasksReset: number;
  /** How many tasks were reset once, twice, … */
  resetsPerTask: { resets: number; tasks: number }[];
}

/**
 * The ended blocked spells, one row each (`task_id`, `exit_move`, `blocked_at`, `ms`): every move
 * out of `blocked` paired with the latest move into it (a block, or a reported status; a reset
 * request keeps the task blocked and starts nothing). Filtered on the spell's start, on the
 * claimant the block judged, and on its session.
 */
function endedSpells(db: object, f: AnalyticsFilter): SQL {
  const modelFilter =
    f.model === null ? ALWAYS : sql`${sessionModelOf(db, sql`(SELECT models FROM sessions WHERE id = b.session_id)`, sql`b.claimant`)} = ${f.model}`;
  // SQLite's planner is told which index pairs a spell's end with its start; PostgreSQL has no hint.
  const blockedIdx = sqlFor(db, { sqlite: sql`INDEXED BY task_transitions_blocked_idx`, postgres: sql`` });
  // IS DISTINCT FROM: SQLite's `IS NOT` (since 3.39), PostgreSQL's null-safe inequality.
  return sql`
    SELECT e.task_id AS task_id, e.move AS exit_move, b.at AS blocked_at, e.at - b.at AS ms
    FROM task_transitions e
    JOIN task_transitions b ${blockedIdx} ON b.task_id = e.task_id AND b.to_status = 'blocked' AND b.id = (
      SELECT max(x.id) FROM task_transitions x
      WHERE x.task_id = e.task_id AND x.to_status = 'blocked' AND x.from_status IS DISTINCT FROM 'blocked' AND x.id < e.id
    )
    WHERE (e.move = 'approve_reset' OR (e.move = 'report' AND e.from_status = 'blocked' AND e.to_status IS DISTINCT FROM 'blocked'))
      AND ${inRange(sql`b.at`, f)} AND ${equalsIfSet(sql`b.claimant`, f.agent)} AND ${inSource(sql`b.session_id`, f)} AND ${modelFilter}`;
}

/** Time spent blocked and resets, across sessions. */
export async function blockedTimeFigures(db: DbOrTx, f: AnalyticsFilter): Promise<BlockedTimeFigures> {
  // One pass pairs the spells; both groupings read it.
  // Rows as arrays (kind, n, count, ms): one per distinct second spent blocked, thousands of them.
  const grouped = (
    await rawValues<["seconds" | "resets", number, number, number | null]>(
      db,
      rollupsAnswer(f)
        ? sql`
    SELECT 'seconds' AS kind, k2 AS n, sum(n) AS count, sum(total) AS ms FROM analytics_rollups WHERE ${rollupScope([allTime(f) ? "spell_all" : "spell"], f, ["agent", "model"])} GROUP BY k2 HAVING sum(n) > 0
    UNION ALL
    ${
      allTime(f)
        ? sql`SELECT 'resets', k2, sum(n), NULL FROM analytics_rollups WHERE ${rollupScope(["reset_hist"], f, [])} GROUP BY k2 HAVING sum(n) > 0`
        : sql`SELECT 'resets', resets, count(*), NULL FROM (
      SELECT k2 AS task_id, sum(n) AS resets FROM analytics_rollups WHERE ${rollupScope(["reset"], f, ["agent", "model"])} GROUP BY k2 HAVING sum(n) > 0
    ) AS per_task GROUP BY 2`
    }`
        : sql`
    WITH spells AS MATERIALIZED (${endedSpells(db, f)})
    SELECT 'seconds' AS kind, ms / 1000 AS n, count(*) AS count, sum(ms) AS ms FROM spells GROUP BY 2
    UNION ALL
    SELECT 'resets', resets, count(*), NULL FROM (SELECT task_id, count(*) AS resets FROM spells WHERE exit_move = 'approve_reset' GROUP BY task_id) AS per_task GROUP BY 2`,
    )
  ).map(([kind, n, count, ms]) => ({ kind, n, count, ms }));
  const seconds = grouped.filter((g) => g.kind === "seconds").map((g) => ({ seconds: g.n, count: g.count, ms: g.ms ?? 0 }));
  const perTask = grouped
    .filter((g) => g.kind === "resets")
    .map((g) => ({ resets: g.n, tasks: g.count }))
    .sort((a, b) => a.resets - b.resets);
  const modelFilter =
    f.model === null ? ALWAYS : sql`${sessionModelOf(db, sql`(SELECT models FROM sessions WHERE id = t.session_id)`, sql`t.claimed_by`)} = ${f.model}`;
  const open = await rawGet<{ open: number }>(
    db,
    sql`
    SELECT count(*) AS open FROM tasks t
    WHERE t.status = 'blocked' AND ${inRange(sql`t.blocked_at`, f)} AND ${equalsIfSet(sql`t.claimed_by`, f.agent)} AND ${inSource(sql`t.session_id`, f)} AND ${modelFilter}`,
  );
  const resolved = percentilesOfHistogram(seconds.map((s) => ({ value: s.seconds * 1000, count: s.count })));
  return {
    resolved: { ...resolved, totalMs: seconds.reduce((sum, s) => sum + s.ms, 0) },
    open: open?.open ?? 0,
    resets: perTask.reduce((sum, r) => sum + r.resets * r.tasks, 0),
    tasksReset: perTask.reduce((sum, r) => sum + r.tasks, 0),
    resetsPerTask: perTask,
  };
}
