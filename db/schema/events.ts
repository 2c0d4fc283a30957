import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, timestampMs } from "./columns";

/**
 * Append-only log of every mutation, written in the same transaction as the change: the audit
 * trail, the source of live updates (tailed by id), and the input of analytics. No foreign key to
 * sessions: an event outlives nothing, but it must never slow a write down or block one.
 */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: createdAt("at"),
    type: text("type").notNull(),
    sessionId: text("session_id"),
    entity: text("entity").notNull(),
    entityId: text("entity_id"),
    actor: text("actor").notNull(),
    principalId: text("principal_id"),
    role: text("role"),
    /** How a person acted when not in the browser: `token:<id> <name>` for a personal API token; null otherwise. */
    via: text("via"),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    index("events_session_id_id_idx").on(t.sessionId, t.id),
    index("events_type_id_idx").on(t.type, t.id),
    // The audit log's filters (/activity): who acted, newest first; and a time range.
    index("events_actor_id_idx").on(t.actor, t.id),
    index("events_at_idx").on(t.at),
  ],
);

/**
 * The one way history is ever deleted (retention). A purge records itself here first; while a
 * purge row is unfinished, the append-only triggers let deletes through. It can be finished once
 * and never removed.
 */
export const purges = sqliteTable("purges", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  startedAt: createdAt("started_at"),
  finishedAt: timestampMs("finished_at"),
  actor: text("actor").notNull(),
  before: timestampMs("before"),
  reason: text("reason").notNull(),
  sessionsDeleted: integer("sessions_deleted"),
});
