import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, check, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, inList, nowMs, timestampMs } from "./columns";
import {
  CONFIDENCE_LEVELS,
  CONTEXT_PACKAGE_TYPES,
  CONTEXT_PRIORITIES,
  CONTEXT_SCOPES,
  LOG_TYPES,
  REASONING_PHASES,
  STATE_TYPES,
} from "@/server/domain/vocabulary";
import { sessions } from "./sessions";

// BAZINGA's telemetry (001, schema v19), with its column names. Logs, tokens, snapshots, skill
// outputs and decisions are append-only (triggers); the latest row of a kind is the current one.

export const orchestrationLogs = sqliteTable(
  "orchestration_logs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    timestamp: createdAt("timestamp"),
    iteration: integer("iteration"),
    agentType: text("agent_type").notNull(),
    agentId: text("agent_id"),
    content: text("content").notNull(),
    logType: text("log_type", { enum: LOG_TYPES }).notNull().default("interaction"),
    reasoningPhase: text("reasoning_phase", { enum: REASONING_PHASES }),
    confidenceLevel: text("confidence_level", { enum: CONFIDENCE_LEVELS }),
    referencesJson: text("references_json", { mode: "json" }).$type<string[]>(),
    /** Secrets were found and replaced on the way in. */
    redacted: integer("redacted", { mode: "boolean" }).notNull().default(false),
    groupId: text("group_id"),
    eventSubtype: text("event_subtype"),
    eventPayload: text("event_payload"),
    idempotencyKey: text("idempotency_key"),
  },
  (t) => [
    index("orchestration_logs_session_id_id_idx").on(t.sessionId, t.id),
    index("orchestration_logs_session_id_agent_type_idx").on(t.sessionId, t.agentType, t.id),
    index("orchestration_logs_session_id_log_type_idx").on(t.sessionId, t.logType, t.id),
    index("orchestration_logs_reasoning_idx")
      .on(t.sessionId, t.groupId, t.reasoningPhase)
      .where(sql`${t.logType} = 'reasoning'`),
    index("orchestration_logs_events_idx")
      .on(t.sessionId, t.eventSubtype, t.id)
      .where(sql`${t.logType} = 'event'`),
    uniqueIndex("orchestration_logs_idempotency_idx")
      .on(t.sessionId, t.eventSubtype, t.groupId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null and ${t.logType} = 'event'`),
    check("orchestration_logs_log_type_check", sql`${t.logType} in (${inList(LOG_TYPES)})`),
    check("orchestration_logs_reasoning_phase_check", sql`${t.reasoningPhase} is null or ${t.reasoningPhase} in (${inList(REASONING_PHASES)})`),
    check("orchestration_logs_confidence_level_check", sql`${t.confidenceLevel} is null or ${t.confidenceLevel} in (${inList(CONFIDENCE_LEVELS)})`),
  ],
);

export const stateSnapshots = sqliteTable(
  "state_snapshots",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    groupId: text("group_id").notNull().default("global"),
    timestamp: createdAt("timestamp"),
    stateType: text("state_type", { enum: STATE_TYPES }).notNull(),
    stateData: text("state_data").notNull(),
  },
  (t) => [
    index("state_snapshots_latest_idx").on(t.sessionId, t.stateType, t.groupId, t.id),
    check("state_snapshots_state_type_check", sql`${t.stateType} in (${inList(STATE_TYPES)})`),
  ],
);

export const tokenUsage = sqliteTable(
  "token_usage",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    timestamp: createdAt("timestamp"),
    agentType: text("agent_type").notNull(),
    agentId: text("agent_id"),
    tokensEstimated: integer("tokens_estimated").notNull(),
    model: text("model"),
  },
  (t) => [
    index("token_usage_session_id_agent_type_idx").on(t.sessionId, t.agentType),
    index("token_usage_timestamp_idx").on(t.timestamp),
    check("token_usage_tokens_check", sql`${t.tokensEstimated} >= 0`),
  ],
);

export const skillOutputs = sqliteTable(
  "skill_outputs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    timestamp: createdAt("timestamp"),
    skillName: text("skill_name").notNull(),
    outputData: text("output_data").notNull(),
    agentType: text("agent_type"),
    groupId: text("group_id"),
    iteration: integer("iteration").notNull().default(1),
  },
  (t) => [index("skill_outputs_latest_idx").on(t.sessionId, t.skillName, t.agentType, t.id)],
);

export const decisions = sqliteTable(
  "decisions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    timestamp: createdAt("timestamp"),
    iteration: integer("iteration"),
    decisionType: text("decision_type").notNull(),
    decisionData: text("decision_data").notNull(),
  },
  (t) => [index("decisions_session_id_idx").on(t.sessionId, t.id)],
);

export const developmentPlans = sqliteTable(
  "development_plans",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    originalPrompt: text("original_prompt").notNull(),
    planText: text("plan_text").notNull(),
    phases: text("phases").notNull(),
    currentPhase: integer("current_phase"),
    totalPhases: integer("total_phases").notNull(),
    metadata: text("metadata"),
    createdAt: createdAt(),
    updatedAt: timestampMs("updated_at").notNull().default(nowMs),
  },
  (t) => [uniqueIndex("development_plans_session_id_idx").on(t.sessionId)],
);

export const contextPackages = sqliteTable(
  "context_packages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    sessionId: text("session_id")
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    groupId: text("group_id"),
    packageType: text("package_type", { enum: CONTEXT_PACKAGE_TYPES }).notNull(),
    filePath: text("file_path").notNull(),
    producerAgent: text("producer_agent").notNull(),
    priority: text("priority", { enum: CONTEXT_PRIORITIES }).notNull().default("medium"),
    summary: text("summary").notNull(),
    sizeBytes: integer("size_bytes"),
    version: integer("version").notNull().default(1),
    supersedesId: integer("supersedes_id").references((): AnySQLiteColumn => contextPackages.id),
    scope: text("scope", { enum: CONTEXT_SCOPES }).notNull().default("group"),
    createdAt: createdAt(),
  },
  (t) => [
    index("context_packages_session_id_priority_idx").on(t.sessionId, t.priority, t.createdAt),
    index("context_packages_session_id_group_id_idx").on(t.sessionId, t.groupId),
    index("context_packages_supersedes_id_idx")
      .on(t.supersedesId)
      .where(sql`${t.supersedesId} IS NOT NULL`),
    check("context_packages_package_type_check", sql`${t.packageType} in (${inList(CONTEXT_PACKAGE_TYPES)})`),
    check("context_packages_priority_check", sql`${t.priority} in (${inList(CONTEXT_PRIORITIES)})`),
    check("context_packages_scope_check", sql`${t.scope} in (${inList(CONTEXT_SCOPES)})`),
  ],
);

export const contextPackageConsumers = sqliteTable(
  "context_package_consumers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    packageId: integer("package_id")
      .notNull()
      .references(() => contextPackages.id, { onDelete: "cascade" }),
    agentType: text("agent_type").notNull(),
    consumedAt: timestampMs("consumed_at"),
    iteration: integer("iteration").notNull().default(1),
  },
  (t) => [
    uniqueIndex("context_package_consumers_package_id_agent_type_iteration_idx").on(t.packageId, t.agentType, t.iteration),
    index("context_package_consumers_agent_type_idx").on(t.agentType),
  ],
);
