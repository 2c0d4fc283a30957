import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, inList, nowMs, timestampMs } from "./columns";

export const IMPORT_SOURCES = ["bazinga", "shots-on-goal"] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/**
 * What the importers brought in, keyed by where it came from (a source row's stable key), with the
 * values last applied. A re-import, a later copy of the file or a follower that restarts adds only
 * the rows it has no record of, and changes a row only when its source values changed.
 */
export const importRecords = sqliteTable(
  "import_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    source: text("source", { enum: IMPORT_SOURCES }).notNull(),
    /** The kind of source row, e.g. `task_group`, `log`, `goal`. */
    entity: text("entity").notNull(),
    /** Stable within the source, e.g. `bazinga_20250112_143022|group_a` or `<session>|log|42`. */
    sourceKey: text("source_key").notNull(),
    /**
     * The Proofgate session it belongs to (none for workflow configuration). Deliberately not a
     * foreign key: when a retention purge deletes a session, its records stay, so importing the
     * source again does not bring the purged history back.
     */
    sessionId: text("session_id"),
    /** The Proofgate row it became (task id, log id, goal id…). */
    targetId: text("target_id"),
    /** JSON of the mapped source values last applied, for rows the source updates in place. */
    state: text("state"),
    importedAt: createdAt("imported_at"),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [
    uniqueIndex("import_records_source_entity_source_key_idx").on(t.source, t.entity, t.sourceKey),
    index("import_records_session_id_idx").on(t.sessionId),
    check("import_records_source_check", sql`${t.source} in (${inList(IMPORT_SOURCES)})`),
  ],
);
