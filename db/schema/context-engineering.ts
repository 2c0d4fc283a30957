import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, nowMs, timestampMs } from "./columns";
import { sessions } from "./sessions";

/**
 * BAZINGA's context-engineering tables (schema v19), with its column names so its prompts' queries
 * (`SELECT signature_json, solution, confidence, occurrences FROM error_patterns WHERE project_id = …`)
 * read them unchanged. Error patterns and strategies belong to a project, not a session; times
 * are epoch milliseconds as everywhere in the ledger. Free text is redacted on the way in and the
 * row flagged `redacted`.
 */
export const errorPatterns = sqliteTable(
  "error_patterns",
  {
    patternHash: text("pattern_hash").notNull(),
    projectId: text("project_id").notNull(),
    /** {error_type, message_pattern, context_hints, stack_pattern}, as BAZINGA builds it. */
    signatureJson: text("signature_json").notNull(),
    solution: text("solution").notNull(),
    confidence: real("confidence").notNull().default(0.5),
    occurrences: integer("occurrences").notNull().default(1),
    lang: text("lang"),
    lastSeen: timestampMs("last_seen").notNull().default(nowMs),
    createdAt: createdAt(),
    ttlDays: integer("ttl_days").notNull().default(90),
    /** The session that last reported it, when known (BAZINGA does not record one). */
    sessionId: text("session_id").references(() => sessions.id, { onDelete: "set null" }),
    redacted: integer("redacted", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.patternHash, t.projectId] }),
    index("error_patterns_project_id_lang_idx").on(t.projectId, t.lang),
    index("error_patterns_session_id_idx").on(t.sessionId),
    check("error_patterns_confidence_check", sql`${t.confidence} >= 0 and ${t.confidence} <= 1`),
    check("error_patterns_occurrences_check", sql`${t.occurrences} >= 1`),
    check("error_patterns_ttl_days_check", sql`${t.ttlDays} > 0`),
  ],
);

/** Insights from successful work, per project, ranked by how often they helped. */
export const strategies = sqliteTable(
  "strategies",
  {
    strategyId: text("strategy_id").primaryKey(),
    projectId: text("project_id").notNull(),
    /** implementation, architecture, methodology, general — or the word BAZINGA stored. */
    topic: text("topic").notNull(),
    insight: text("insight").notNull(),
    helpfulness: integer("helpfulness").notNull().default(0),
    lang: text("lang"),
    framework: text("framework"),
    lastSeen: timestampMs("last_seen").notNull().default(nowMs),
    createdAt: createdAt(),
    /** The session it was extracted from, when known. */
    sessionId: text("session_id").references(() => sessions.id, { onDelete: "set null" }),
    redacted: integer("redacted", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [
    index("strategies_project_id_framework_idx").on(t.projectId, t.framework),
    index("strategies_topic_idx").on(t.topic),
    index("strategies_session_id_idx").on(t.sessionId),
    check("strategies_helpfulness_check", sql`${t.helpfulness} >= 0`),
  ],
);

/**
 * Which agent read which context package in which iteration of a group. `package_id` is the
 * ledger's context package id; no foreign key, so a BAZINGA row whose package is gone is still kept.
 */
export const consumptionScope = sqliteTable(
  "consumption_scope",
  {
    scopeId: text("scope_id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    groupId: text("group_id").notNull(),
    agentType: text("agent_type").notNull(),
    iteration: integer("iteration").notNull(),
    packageId: integer("package_id").notNull(),
    consumedAt: timestampMs("consumed_at").notNull().default(nowMs),
  },
  (t) => [
    index("consumption_scope_session_id_group_id_agent_type_idx").on(t.sessionId, t.groupId, t.agentType),
    uniqueIndex("consumption_scope_unique_idx").on(t.sessionId, t.groupId, t.agentType, t.iteration, t.packageId),
    index("consumption_scope_package_id_idx").on(t.packageId),
  ],
);
