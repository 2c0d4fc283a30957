import { rawAll, rawGet, rawRun, sqlFor } from "@/db/query";
import { type SQL, sql } from "drizzle-orm";
import { type Db, type DbOrTx, writeTransaction } from "@/db/client";
import { bucketSql } from "./filters";
import { DAY_MS, reasonKind } from "./shape";
import type { AnalyticsFilter } from "./schemas";

/*
 * Reading the analytics rollups (db/schema/analytics.ts). The triggers keep them per UTC day, so
 * they answer any filter whose range is whole UTC days (the dashboard's, or none at all); a range
 * that cuts a day in two is answered from the history by the figure's own query.
 */

/** The rollups answer `f` exactly: its range starts at a UTC midnight and ends on the last millisecond of a day. */
export function rollupsAnswer(f: Pick<AnalyticsFilter, "from" | "to" | "fromHistory">): boolean {
  return !f.fromHistory && (f.from === null || f.from % DAY_MS === 0) && (f.to === null || (f.to + 1) % DAY_MS === 0);
}

/** No range, agent or model: the all-time rows (day 0, by source only) answer it. */
export function allTime(f: AnalyticsFilter): boolean {
  return f.from === null && f.to === null && f.agent === null && f.model === null;
}

type Dimension = "agent" | "model";

/** The rows of `figures` the filter selects: day range and source always, agent and model where the figure has them. */
export function rollupScope(figures: readonly string[], f: AnalyticsFilter, dimensions: readonly Dimension[]): SQL {
  const parts: SQL[] = [
    sql`figure IN (${sql.join(
      figures.map((x) => sql`${x}`),
      sql`, `,
    )})`,
  ];
  if (f.from !== null) parts.push(sql`day >= ${f.from}`);
  if (f.to !== null) parts.push(sql`day <= ${f.to}`);
  if (f.source !== null) parts.push(sql`source = ${f.source}`);
  for (const dimension of dimensions) {
    const value = f[dimension];
    if (value !== null) parts.push(sql`${sql.identifier(dimension)} = ${value}`);
  }
  return sql.join(parts, sql` AND `);
}

const WATERMARK = "reason_kinds_through";
/** Completion checks classified per transaction: a few milliseconds, so other requests barely wait. */
export const REASON_CHUNK = 1000;

/**
 * Classify the rejection reasons of the completion checks written since the last call into
 * `analytics_reason_kinds` (each check once per kind), up to `maxChunks` transactions of
 * `REASON_CHUNK` checks. Checks are append-only, so everything at or below the watermark is
 * counted once; a purge empties both and the next call counts again. Returns false when nothing
 * is left to classify, true when more remains (call again after letting other work run).
 * Refused on a read-only connection: the caller then reads the history instead.
 */
export async function catchUpReasonKinds(db: Db, maxChunks = Number.POSITIVE_INFINITY): Promise<boolean> {
  for (let chunk = 0; chunk < maxChunks; chunk++) {
    const more = await writeTransaction(db, async (tx) => {
      const through = (await rawGet<{ value: number } | undefined>(tx, sql`SELECT value FROM analytics_rollup_state WHERE name = ${WATERMARK}`))?.value ?? 0;
      // `accepted`: 0/1 on SQLite, a boolean on PostgreSQL.
      const checks = await rawAll<{ id: number; accepted: number | boolean; reasons: string; day: number; source: string; agent: string }>(
        tx,
        sql`
          SELECT c.id AS id, c.accepted AS accepted, c.reasons AS reasons, ${bucketSql(sql`c.at`, "day")} AS day, s.source AS source, c.actor AS agent
          FROM completion_checks c JOIN sessions s ON s.id = c.session_id
          WHERE c.id > ${through} ORDER BY c.id LIMIT ${REASON_CHUNK}`,
      );
      const last = checks.at(-1);
      if (!last) return false;
      // Counted per key in memory first (checks come in id order, so the first example is the earliest).
      const counts = new Map<string, { day: number; source: string; agent: string; kind: string; checks: number; exampleCheckId: number; example: string }>();
      for (const check of checks) {
        if (check.accepted) continue;
        for (const [kind, example] of kindsOf(check.reasons)) {
          const key = JSON.stringify([check.day, check.source, check.agent, kind]);
          const entry = counts.get(key);
          if (entry) entry.checks += 1;
          else counts.set(key, { day: check.day, source: check.source, agent: check.agent, kind, checks: 1, exampleCheckId: check.id, example });
        }
      }
      // The stored row's columns are named by the table (PostgreSQL finds a bare name ambiguous beside `excluded`).
      const firstExample = sqlFor(tx, {
        sqlite: sql`min(analytics_reason_kinds.example_check_id, excluded.example_check_id)`,
        postgres: sql`LEAST(analytics_reason_kinds.example_check_id, excluded.example_check_id)`,
      });
      for (const c of counts.values()) {
        await rawRun(
          tx,
          sql`
            INSERT INTO analytics_reason_kinds (day, source, agent, kind, checks, example_check_id, example)
            VALUES (${c.day}, ${c.source}, ${c.agent}, ${c.kind}, ${c.checks}, ${c.exampleCheckId}, ${c.example})
            ON CONFLICT (day, source, agent, kind) DO UPDATE SET checks = analytics_reason_kinds.checks + excluded.checks,
              example = CASE WHEN excluded.example_check_id < analytics_reason_kinds.example_check_id THEN excluded.example ELSE analytics_reason_kinds.example END,
              example_check_id = ${firstExample}`,
        );
      }
      await rawRun(
        tx,
        sql`INSERT INTO analytics_rollup_state (name, value) VALUES (${WATERMARK}, ${last.id}) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
      );
      return checks.length === REASON_CHUNK;
    });
    if (!more) return false;
  }
  return true;
}

/** A check's reasons by kind, each kind once with its first wording (texts only, as `json_each` type 'text'). */
function kindsOf(reasonsJson: string): Map<string, string> {
  const kinds = new Map<string, string>();
  let reasons: unknown;
  try {
    reasons = JSON.parse(reasonsJson);
  } catch {
    return kinds;
  }
  if (!Array.isArray(reasons)) return kinds;
  for (const reason of reasons) {
    if (typeof reason !== "string") continue;
    const kind = reasonKind(reason);
    if (!kinds.has(kind)) kinds.set(kind, reason);
  }
  return kinds;
}

/** The last completion check `analytics_reason_kinds` counts (0: none yet). */
export async function reasonKindsThrough(db: DbOrTx): Promise<number> {
  return (await rawGet<{ value: number } | undefined>(db, sql`SELECT value FROM analytics_rollup_state WHERE name = ${WATERMARK}`))?.value ?? 0;
}
