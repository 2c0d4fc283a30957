import { rawAll, rawGet } from "@/db/query";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { bucketSql, equalsIfSet, inRange, inSource } from "./filters";
import type { AnalyticsFilter } from "./schemas";
import { fillSeries } from "./shape";

export interface RuntimeStopFigures {
  /** Stops an agent runtime's hook held because a linked session's completion gate rejected (`runtime.stop_held`), one per held session. */
  held: number;
  /** Stops let through with the gate still rejecting (`runtime.stop_unverified`: the cap, or another hook's continuation), one per session. */
  unverified: number;
  /** Ledger sessions with at least one unverified stop in scope. */
  sessionsUnverified: number;
  series: { bucket: number; held: number; unverified: number }[];
}

/**
 * Stops held and stops that went through with the gate rejected, from the events the hook writes
 * (one per ledger session the stop concerned). Read from `events` by type (its (type, id) index):
 * a runtime stops once per turn, so these are few rows beside the tool calls. Time: the stop's;
 * agent: who ran the hook (the event's actor); source: the ledger session's. No model.
 */
export async function runtimeStopFigures(db: DbOrTx, f: AnalyticsFilter): Promise<RuntimeStopFigures> {
  const where = sql`e.type IN (${EVENT_TYPES.runtimeStopHeld}, ${EVENT_TYPES.runtimeStopUnverified})
    AND ${inRange(sql`e.at`, f)} AND ${equalsIfSet(sql`e.actor`, f.agent)} AND ${inSource(sql`e.session_id`, f)}`;
  const rows = await rawAll<{ bucket: number; held: number; unverified: number }>(
    db,
    sql`
    SELECT ${bucketSql(sql`e.at`, f.bucket)} AS bucket,
      sum(CASE WHEN e.type = ${EVENT_TYPES.runtimeStopHeld} THEN 1 ELSE 0 END) AS held,
      sum(CASE WHEN e.type = ${EVENT_TYPES.runtimeStopUnverified} THEN 1 ELSE 0 END) AS unverified
    FROM events e WHERE ${where} GROUP BY 1`,
  );
  const sessions = await rawGet<{ n: number }>(
    db,
    sql`
    SELECT count(DISTINCT e.session_id) AS n FROM events e WHERE ${where} AND e.type = ${EVENT_TYPES.runtimeStopUnverified}`,
  );
  return {
    held: rows.reduce((n, r) => n + r.held, 0),
    unverified: rows.reduce((n, r) => n + r.unverified, 0),
    sessionsUnverified: sessions?.n ?? 0,
    series: fillSeries(rows, f.bucket, (bucket) => ({ bucket, held: 0, unverified: 0 })),
  };
}
