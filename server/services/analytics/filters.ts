import { type SQL, sql } from "drizzle-orm";
import { sqlFor } from "@/db/query";
import type { AnalyticsFilter, Bucket } from "./schemas";

/** A condition that always holds, where a filter is not set (`TRUE` is 1 on SQLite, a boolean on PostgreSQL). */
export const ALWAYS = sql`TRUE`;

/** `expr` is within the filter's range (both ends inclusive); always true without one. */
export function inRange(expr: SQL, f: Pick<AnalyticsFilter, "from" | "to">): SQL {
  if (f.from !== null && f.to !== null) return sql`${expr} BETWEEN ${f.from} AND ${f.to}`;
  if (f.from !== null) return sql`${expr} >= ${f.from}`;
  if (f.to !== null) return sql`${expr} <= ${f.to}`;
  return ALWAYS;
}

/** The row's session has the filter's source; always true without one. */
export function inSource(sessionId: SQL, f: Pick<AnalyticsFilter, "source">): SQL {
  return f.source === null ? ALWAYS : sql`${sessionId} IN (SELECT id FROM sessions WHERE source = ${f.source})`;
}

/** `expr` equals `value`, or always true when the filter is not set. */
export function equalsIfSet(expr: SQL, value: string | null): SQL {
  return value === null ? ALWAYS : sql`${expr} = ${value}`;
}

/**
 * The start of the bucket holding the epoch-ms `expr`: UTC midnight, or the Monday of its ISO week
 * (epoch day 0 was a Thursday, hence the shift by 3). Integer division, as `bucketStart` in shape.ts.
 */
export function bucketSql(expr: SQL, bucket: Bucket): SQL<number> {
  // The cast keeps the division integral for a value stored (or bound, as better-sqlite3 binds numbers) as REAL.
  // BIGINT: epoch ms overflow PostgreSQL's 32-bit INTEGER; SQLite reads the name as its (64-bit) INTEGER.
  const days = sql`(CAST(${expr} AS BIGINT) / 86400000)`;
  return bucket === "day" ? sql<number>`(${days} * 86400000)` : sql<number>`(((${days} + 3) / 7 * 7 - 3) * 86400000)`;
}

/**
 * The model a session recorded for an agent's type: `sessions.models` maps agent types to models
 * (`{"developer": "claude-sonnet-4.5"}`), and a label is its type plus a number (`developer_2`).
 * NULL when the session did not record one for that type. Spelled as the rollup triggers spell it
 * (db/triggers/sql.ts `jsonValue`), so the history and the rollups agree.
 */
export function sessionModelOf(db: object, models: SQL, agentLabel: SQL): SQL<string | null> {
  // json_each rather than a JSON path: a label may hold characters a path cannot.
  const type = sql`rtrim(rtrim(${agentLabel}, '0123456789'), '_')`;
  return sqlFor(db, {
    sqlite: sql`(SELECT value FROM json_each(${models}) WHERE key = ${type})`,
    postgres: sql`(SELECT value FROM jsonb_each_text((${models})::jsonb) WHERE key = ${type})`,
  }) as SQL<string | null>;
}
