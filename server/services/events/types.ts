import { rawAll } from "@/db/query";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";

/**
 * Every event type in the log, in name order: the audit log's type filter offers exactly these.
 * A skip scan of `events_type_id_idx` (one index seek per distinct type), not a read of every event.
 */
export async function listEventTypes(db: DbOrTx): Promise<string[]> {
  return (
    await rawAll<{ type: string }>(
      db,
      sql`WITH RECURSIVE t(type) AS (SELECT min(type) FROM events UNION ALL SELECT (SELECT min(type) FROM events WHERE type > t.type) FROM t WHERE t.type IS NOT NULL) SELECT type FROM t WHERE type IS NOT NULL`,
    )
  ).map((row) => row.type);
}
