import type Database from "better-sqlite3";
import { ValidationError } from "@/server/domain/errors";
import type { SourceSchema } from "../source";

/**
 * BAZINGA's schema, version by version (001 and BAZINGA's init_db.py migrations): the columns and
 * tables each version from 12 to 19 added. v12 is the base this importer needs; v13 added the
 * deterministic-orchestration tables, v14 the escalation counters, v15 `component_path`, v19 the
 * SpecKit task ids. The v16–v18 additions are placed as the v19 schema shows them (review loop
 * counters, per-group state snapshots, event idempotency keys). Every column is read only if the
 * file has it, so any version — and a file whose `schema_version` disagrees with its columns — imports.
 */
export const BAZINGA_TABLES: Readonly<Record<string, readonly string[]>> = {
  sessions: ["session_id", "start_time", "end_time", "mode", "original_requirements", "status", "initial_branch", "metadata", "created_at"],
  orchestration_logs: [
    "id",
    "session_id",
    "timestamp",
    "iteration",
    "agent_type",
    "agent_id",
    "content",
    "log_type",
    "reasoning_phase",
    "confidence_level",
    "references_json",
    "redacted",
    "group_id",
    "event_subtype",
    "event_payload",
    "idempotency_key",
  ],
  state_snapshots: ["id", "session_id", "group_id", "timestamp", "state_type", "state_data"],
  task_groups: [
    "id",
    "session_id",
    "name",
    "status",
    "assigned_to",
    "revision_count",
    "last_review_status",
    "feature_branch",
    "merge_status",
    "complexity",
    "initial_tier",
    "context_references",
    "specializations",
    "item_count",
    "security_sensitive",
    "qa_attempts",
    "tl_review_attempts",
    "component_path",
    "review_iteration",
    "no_progress_count",
    "blocking_issues_count",
    "speckit_task_ids",
    "created_at",
    "updated_at",
  ],
  token_usage: ["id", "session_id", "timestamp", "agent_type", "agent_id", "tokens_estimated"],
  skill_outputs: ["id", "session_id", "timestamp", "skill_name", "output_data", "agent_type", "group_id", "iteration"],
  development_plans: ["id", "session_id", "original_prompt", "plan_text", "phases", "current_phase", "total_phases", "created_at", "updated_at", "metadata"],
  success_criteria: ["id", "session_id", "criterion", "status", "actual", "evidence", "required_for_completion", "created_at", "updated_at"],
  context_packages: [
    "id",
    "session_id",
    "group_id",
    "package_type",
    "file_path",
    "producer_agent",
    "priority",
    "summary",
    "size_bytes",
    "version",
    "supersedes_id",
    "scope",
    "created_at",
  ],
  context_package_consumers: ["id", "package_id", "agent_type", "consumed_at", "iteration"],
  workflow_transitions: [
    "id",
    "current_agent",
    "response_status",
    "next_agent",
    "action",
    "include_context",
    "escalation_check",
    "model_override",
    "fallback_agent",
    "bypass_qa",
    "max_parallel",
    "then_action",
  ],
  agent_markers: ["id", "agent_type", "required_markers", "workflow_markers"],
  workflow_special_rules: ["id", "rule_name", "description", "config"],
  // Present in databases created before BAZINGA dropped them (001 still lists them).
  decisions: ["id", "session_id", "timestamp", "iteration", "decision_type", "decision_data"],
  configuration: ["key", "value", "updated_at"],
  model_config: ["agent_role", "model", "rationale", "updated_at"],
  schema_version: ["version", "applied_at", "description"],
  // v19's context engineering.
  error_patterns: ["pattern_hash", "project_id", "signature_json", "solution", "confidence", "occurrences", "lang", "last_seen", "created_at", "ttl_days"],
  strategies: ["strategy_id", "project_id", "topic", "insight", "helpfulness", "lang", "framework", "last_seen", "created_at"],
  consumption_scope: ["scope_id", "session_id", "group_id", "agent_type", "iteration", "package_id", "consumed_at"],
};

/** BAZINGA tables Proofgate has no place for (none since the context-engineering tables were added). */
const UNMAPPED_TABLES: readonly string[] = [];
/** Columns read but not kept: no Proofgate column holds them. */
const UNMAPPED_COLUMNS: Readonly<Record<string, readonly string[]>> = {};

type Feature = { table: string; column?: string };
/** What each version added, on top of the v12 base. */
export const VERSION_FEATURES: Readonly<Record<number, readonly Feature[]>> = {
  12: [
    ...[
      "sessions",
      "orchestration_logs",
      "state_snapshots",
      "task_groups",
      "token_usage",
      "skill_outputs",
      "development_plans",
      "success_criteria",
      "context_packages",
      "context_package_consumers",
    ].map((table) => ({ table })),
    { table: "sessions", column: "initial_branch" },
    { table: "sessions", column: "metadata" },
    { table: "orchestration_logs", column: "log_type" },
    { table: "orchestration_logs", column: "event_subtype" },
    { table: "task_groups", column: "specializations" },
    { table: "task_groups", column: "item_count" },
    { table: "skill_outputs", column: "iteration" },
    { table: "context_packages", column: "priority" },
  ],
  13: [{ table: "workflow_transitions" }, { table: "agent_markers" }, { table: "workflow_special_rules" }],
  14: [
    { table: "task_groups", column: "security_sensitive" },
    { table: "task_groups", column: "qa_attempts" },
    { table: "task_groups", column: "tl_review_attempts" },
  ],
  15: [{ table: "task_groups", column: "component_path" }],
  16: [
    { table: "task_groups", column: "review_iteration" },
    { table: "task_groups", column: "no_progress_count" },
    { table: "task_groups", column: "blocking_issues_count" },
  ],
  17: [{ table: "state_snapshots", column: "group_id" }],
  18: [{ table: "orchestration_logs", column: "idempotency_key" }],
  19: [{ table: "task_groups", column: "speckit_task_ids" }],
};
export const OLDEST_VERSION = 12;
export const NEWEST_VERSION = 19;

export interface BazingaSchemaInfo {
  /** The version imported as: `schema_version`'s when it has one, else inferred from the columns. */
  version: number | null;
  declared: number | null;
  /** The newest version whose tables and columns are all present (below 12: older than this importer knows). */
  inferred: number;
  detectedFrom: string;
  notes: string[];
  notMapped: string[];
}

const describe = (f: Feature) => (f.column ? `${f.table}.${f.column}` : `table ${f.table}`);
const present = (schema: SourceSchema, f: Feature) => (f.column ? schema.has(f.table, f.column) : schema.hasTable(f.table));

/**
 * Whether the file is a BAZINGA database, which version, and what of it Proofgate cannot hold.
 * @throws ValidationError (exit 2) when it is not a BAZINGA database, naming what is missing.
 */
export function detectBazinga(db: Database.Database, schema: SourceSchema, file: string): BazingaSchemaInfo {
  if (!schema.has("sessions", "session_id") || !(schema.hasTable("task_groups") || schema.hasTable("orchestration_logs"))) {
    const hint =
      schema.hasTable("session") && (schema.hasTable("goal") || schema.hasTable("goals"))
        ? " — it looks like a shots-on-goal database: use `proofgate import shots-on-goal`"
        : "";
    throw new ValidationError(
      "path",
      "import.not_bazinga",
      `${file} is not a BAZINGA database: it has no sessions(session_id) table with task_groups or orchestration_logs${hint}`,
    );
  }
  const declared = schema.has("schema_version", "version")
    ? ((db.prepare("SELECT max(version) FROM schema_version").pluck().get() as number | null) ?? null)
    : null;
  let inferred = OLDEST_VERSION - 1;
  const missingAt = new Map<number, string[]>();
  for (let v = OLDEST_VERSION; v <= NEWEST_VERSION; v++) {
    const missing = VERSION_FEATURES[v]!.filter((f) => !present(schema, f)).map(describe);
    missingAt.set(v, missing);
    if (missing.length === 0 && inferred === v - 1) inferred = v;
  }
  const notes: string[] = [];
  let detectedFrom: string;
  if (declared !== null) {
    detectedFrom =
      inferred === declared
        ? "schema_version, and the columns agree"
        : `schema_version; the columns match v${inferred < OLDEST_VERSION ? `<${OLDEST_VERSION}` : inferred}`;
    if (inferred < declared && declared <= NEWEST_VERSION) {
      const missing = [...missingAt].filter(([v]) => v <= declared).flatMap(([, m]) => m);
      notes.push(`schema_version says ${declared} but the file lacks ${missing.join(", ")}: those are imported as empty`);
    }
  } else {
    detectedFrom = "no schema_version table: inferred from the columns";
  }
  const version = declared ?? (inferred >= OLDEST_VERSION ? inferred : null);
  if (version === null || version < OLDEST_VERSION || version > NEWEST_VERSION) {
    notes.push(
      `version ${version ?? "unknown"} is outside ${OLDEST_VERSION}–${NEWEST_VERSION}, the versions this importer knows: the tables and columns it recognises are imported`,
    );
  }
  return { version, declared, inferred, detectedFrom, notes, notMapped: notMapped(db, schema) };
}

function notMapped(db: Database.Database, schema: SourceSchema): string[] {
  const out: string[] = [];
  const rows = (table: string) =>
    db
      .prepare(`SELECT count(*) FROM "${table.replaceAll('"', '""')}"`)
      .pluck()
      .get() as number;
  for (const table of schema.tables()) {
    if (UNMAPPED_TABLES.includes(table)) out.push(`table ${table} (${rows(table)} rows): Proofgate has no place for it`);
    else if (!(table in BAZINGA_TABLES)) out.push(`table ${table} (${rows(table)} rows): not a table this importer knows`);
    else {
      for (const column of schema.columnsOf(table)) {
        if (UNMAPPED_COLUMNS[table]?.includes(column)) out.push(`${table}.${column}: no Proofgate column holds it`);
        else if (!BAZINGA_TABLES[table]!.includes(column)) out.push(`${table}.${column}: not a column this importer knows`);
      }
    }
  }
  if (schema.has("orchestration_logs", "redacted")) {
    const flagged = db.prepare("SELECT count(*) FROM orchestration_logs WHERE redacted = 1").pluck().get() as number;
    if (flagged > 0) out.push(`orchestration_logs.redacted (${flagged} rows): Proofgate redacts and flags each row itself; BAZINGA's own flag is not copied`);
  }
  return out;
}
