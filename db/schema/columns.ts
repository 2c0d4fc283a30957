import { sql } from "drizzle-orm";
import { integer } from "drizzle-orm/sqlite-core";

/**
 * Every timestamp is UTC epoch milliseconds (an INTEGER): unambiguous, sortable, cheap to index,
 * and never a naive local string. Drizzle reads it back as a Date.
 */
export const timestampMs = (name: string) => integer(name, { mode: "timestamp_ms" });

/**
 * The database default, so rows written by raw SQL get a correct time too. julianday() rather than
 * unixepoch('subsec'), which older SQLite clients (3.40, Debian's CLI) evaluate to NULL.
 */
export const nowMs = sql`(cast(round((julianday('now') - 2440587.5) * 86400000) as integer))`;

export const createdAt = (name = "created_at") => timestampMs(name).notNull().default(nowMs);

/** SQL `IN (...)` list for a CHECK constraint built from a TypeScript union's values. */
export function inList(values: readonly string[]) {
  return sql.raw(values.map((v) => `'${v.replaceAll("'", "''")}'`).join(", "));
}
