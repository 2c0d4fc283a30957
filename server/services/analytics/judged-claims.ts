import { type SQL, sql } from "drizzle-orm";
import { sqlFor } from "@/db/query";
import { equalsIfSet, inRange, inSource } from "./filters";
import type { AnalyticsFilter } from "./schemas";

/**
 * The judged claims, as a subquery with columns `move` (`verify` | `block`), `judged_at`,
 * `task_id`, `session_id`, `claimant`, `claimed_at`: every verify or block move, paired with the
 * claim it judged — the latest move that put its task into `claimed`, which must be a claim move
 * (a status an observed orchestrator reported is no claim). The task machine lets a task leave
 * `claimed` only by one judgment, so each claim is judged at most once; a claim "later blocked" is
 * one whose judgment is a block. Filtered on the claim: its time, claimant and session's source.
 */
export function judgedClaims(db: object, f: AnalyticsFilter): SQL {
  // SQLite's planner is told which index pairs a judgment with its claim; PostgreSQL has no hint.
  const claimedIdx = sqlFor(db, { sqlite: sql`INDEXED BY task_transitions_claimed_idx`, postgres: sql`` });
  return sql`
    SELECT j.move AS move, j.at AS judged_at, j.task_id AS task_id, c.session_id AS session_id, c.actor AS claimant, c.at AS claimed_at
    FROM task_transitions j
    JOIN task_transitions c ${claimedIdx} ON c.task_id = j.task_id AND c.to_status = 'claimed' AND c.id = (
      SELECT max(x.id) FROM task_transitions x WHERE x.task_id = j.task_id AND x.to_status = 'claimed' AND x.id < j.id
    )
    WHERE j.move IN ('verify', 'block') AND c.move = 'claim'
      AND ${inRange(sql`c.at`, f)} AND ${equalsIfSet(sql`c.actor`, f.agent)} AND ${inSource(sql`c.session_id`, f)}`;
}

/** Every claim move, with the same columns' names where they apply, filtered the same way. */
export function claims(f: AnalyticsFilter): SQL {
  return sql`
    SELECT task_id, session_id, actor AS claimant, at AS claimed_at FROM task_transitions
    WHERE move = 'claim' AND ${inRange(sql`at`, f)} AND ${equalsIfSet(sql`actor`, f.agent)} AND ${inSource(sql`session_id`, f)}`;
}
