import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { inList, nowMs, timestampMs } from "./columns";
import { sessions } from "./sessions";

import { RUNTIMES } from "@/server/domain/runtime-session";

export { RUNTIMES };
/** How a runtime session was (re)started (Claude Code's SessionStart `source`), or `command`: first seen through a command run inside it. */
export const RUNTIME_SESSION_SOURCES = ["startup", "resume", "clear", "compact", "command"] as const;

/**
 * A session of an agent runtime (a Claude Code session, say), as its hooks report it. Ledger
 * sessions created by commands run inside it are linked to it, so its stops can be held while a
 * linked session's completion gate rejects.
 */
export const runtimeSessions = sqliteTable(
  "runtime_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runtime: text("runtime", { enum: RUNTIMES }).notNull(),
    /** The runtime's own id (Claude Code's `session_id`). */
    externalId: text("external_id").notNull(),
    cwd: text("cwd"),
    /** How the runtime last (re)started it: startup, resume, clear, compact; `command` when first seen through a linked command. */
    source: text("source", { enum: RUNTIME_SESSION_SOURCES }).notNull(),
    firstSeenAt: timestampMs("first_seen_at").notNull().default(nowMs),
    lastSeenAt: timestampMs("last_seen_at").notNull().default(nowMs),
    /** The agent's stops held in a row since the last one that went through: the cap is checked against it. */
    consecutiveBlocks: integer("consecutive_blocks").notNull().default(0),
    /** The same for its subagents' stops (SubagentStop), counted apart so neither resets the other's cap. */
    subagentConsecutiveBlocks: integer("subagent_consecutive_blocks").notNull().default(0),
    /**
     * The principal that first reported it (its SessionStart, or a command run inside it): only that
     * principal links ledger sessions to it and sends its hooks (server/domain/runtime-owner.ts).
     * Null on a row from before owners were kept: the next principal to report it adopts it.
     */
    ownerPrincipal: text("owner_principal"),
  },
  (t) => [
    uniqueIndex("runtime_sessions_runtime_external_id_idx").on(t.runtime, t.externalId),
    check("runtime_sessions_runtime_check", sql`${t.runtime} in (${inList(RUNTIMES)})`),
    check("runtime_sessions_source_check", sql`${t.source} in (${inList(RUNTIME_SESSION_SOURCES)})`),
    check("runtime_sessions_consecutive_blocks_check", sql`${t.consecutiveBlocks} >= 0 and ${t.subagentConsecutiveBlocks} >= 0`),
  ],
);

/** A ledger session created inside a runtime session: one runtime session per ledger session, many the other way. */
export const runtimeSessionLinks = sqliteTable(
  "runtime_session_links",
  {
    sessionId: text("session_id")
      .primaryKey()
      .references(() => sessions.id, { onDelete: "cascade" }),
    runtimeSessionId: integer("runtime_session_id")
      .notNull()
      .references(() => runtimeSessions.id, { onDelete: "cascade" }),
    linkedAt: timestampMs("linked_at").notNull().default(nowMs),
  },
  (t) => [index("runtime_session_links_runtime_session_id_idx").on(t.runtimeSessionId, t.sessionId)],
);
