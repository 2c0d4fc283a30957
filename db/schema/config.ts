import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { nowMs, timestampMs } from "./columns";

// Server-wide configuration and BAZINGA's workflow tables (001, v13+). Editable by admins.

export const configuration = sqliteTable("configuration", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestampMs("updated_at").notNull().default(nowMs),
});

export const modelConfig = sqliteTable("model_config", {
  agentRole: text("agent_role").primaryKey(),
  model: text("model").notNull(),
  rationale: text("rationale"),
  updatedAt: timestampMs("updated_at").notNull().default(nowMs),
});

export const workflowTransitions = sqliteTable(
  "workflow_transitions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    currentAgent: text("current_agent").notNull(),
    responseStatus: text("response_status").notNull(),
    nextAgent: text("next_agent"),
    action: text("action").notNull(),
    includeContext: text("include_context"),
    escalationCheck: integer("escalation_check", { mode: "boolean" }).notNull().default(false),
    modelOverride: text("model_override"),
    fallbackAgent: text("fallback_agent"),
    bypassQa: integer("bypass_qa", { mode: "boolean" }).notNull().default(false),
    maxParallel: integer("max_parallel"),
    thenAction: text("then_action"),
  },
  (t) => [uniqueIndex("workflow_transitions_current_agent_response_status_idx").on(t.currentAgent, t.responseStatus)],
);

export const agentMarkers = sqliteTable("agent_markers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  agentType: text("agent_type").notNull().unique(),
  requiredMarkers: text("required_markers").notNull(),
  workflowMarkers: text("workflow_markers"),
});

export const workflowSpecialRules = sqliteTable("workflow_special_rules", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  ruleName: text("rule_name").notNull().unique(),
  description: text("description"),
  config: text("config").notNull(),
});
