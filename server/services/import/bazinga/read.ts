import type Database from "better-sqlite3";
import { type SourceSchema, readSnapshot } from "../source";

/** A source row as SQLite returns it: whatever the column holds. */
export type Row = Record<string, unknown>;

/** Append-only tables are read in id order, this many rows at a time, so memory stays bounded whatever the table's size. */
export const APPEND_CHUNK = 5000;

/** The highest id read of each append-only table. */
export type Marks = Record<AppendTable, number>;

/**
 * The rows of a large state table, read a page at a time (keyset on rowid) from a connection that
 * holds one read transaction for the whole pass: one consistent snapshot, never the whole table in memory.
 */
export interface Paged {
  total: number;
  pages(size: number): Generator<Row[]>;
}

export const NO_ROWS: Paged = { total: 0, *pages() {} };

function paged(db: Database.Database, schema: SourceSchema, table: string, columns: readonly string[], extra = ""): Paged {
  if (!schema.hasTable(table)) return NO_ROWS;
  const total = db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number;
  const page = db.prepare(`SELECT rowid AS "_rowid", ${schema.select(table, columns)}${extra} FROM "${table}" WHERE rowid > ? ORDER BY rowid LIMIT ?`);
  return {
    total,
    *pages(size: number) {
      for (let after = Number.MIN_SAFE_INTEGER; ;) {
        const rows = page.all(after, size) as Row[];
        if (rows.length === 0) return;
        after = rows.at(-1)!._rowid as number;
        for (const row of rows) delete row._rowid;
        yield rows;
        if (rows.length < size) return;
      }
    },
  };
}

/** Everything but the append-only tables: the large ones paged, the rest a few rows per session; never a table's documents. */
export interface BazingaState {
  sessions: Paged;
  taskGroups: Paged;
  criteria: Paged;
  /** Each session's latest `pm` state (for criteria that exist only there): id, session and time, its data read later (`readData`). */
  pmStates: Row[];
  /** Snapshots and skill outputs, without their data (the importer reads the data of those new or changed: `readData`). */
  states: Paged;
  skillOutputs: Paged;
  plans: Row[];
  packages: Row[];
  consumers: Row[];
  /** Context engineering (v19): per project, and per session. */
  errorPatterns: Row[];
  strategies: Row[];
  consumption: Row[];
  config: { transitions: Row[]; markers: Row[]; rules: Row[]; configuration: Row[]; models: Row[] };
}

/** The append-only tables, read in id order a chunk at a time (keyset on `id`). */
export const APPEND_TABLES = {
  orchestration_logs: () => LOG_COLUMNS,
  token_usage: () => ["id", "session_id", "timestamp", "agent_type", "agent_id", "tokens_estimated"],
  decisions: () => ["id", "session_id", "timestamp", "iteration", "decision_type", "decision_data"],
} as const satisfies Record<string, () => readonly string[]>;
export type AppendTable = keyof typeof APPEND_TABLES;

/** The next chunk of an append-only table after `mark`, in its own short read transaction. */
export function readAppendChunk(db: Database.Database, schema: SourceSchema, table: AppendTable, mark: number, limit = APPEND_CHUNK): Row[] {
  if (!schema.hasTable(table)) return [];
  return readSnapshot(
    db,
    () => db.prepare(`SELECT ${schema.select(table, APPEND_TABLES[table]())} FROM "${table}" WHERE id > ? ORDER BY id LIMIT ${limit}`).all(mark) as Row[],
  );
}

/** How many rows of an append-only table are after `mark` (the progress total; answered from the table's b-tree). */
export function countAfter(db: Database.Database, schema: SourceSchema, table: AppendTable, mark: number): number {
  if (!schema.hasTable(table)) return 0;
  return (db.prepare(`SELECT count(*) FROM "${table}" WHERE id > ?`).pluck().get(mark) as number) ?? 0;
}

/** One row of an append-only table by id (to check that a recorded high-water mark is still this file's row). */
export function readAppendRow(db: Database.Database, schema: SourceSchema, table: AppendTable, id: number): Row | undefined {
  if (!schema.hasTable(table)) return undefined;
  return db.prepare(`SELECT ${schema.select(table, ["id", "session_id", "timestamp"])} FROM "${table}" WHERE id = ?`).get(id) as Row | undefined;
}

/** The documents of a few snapshot-like rows, by id (a row deleted since is absent). */
export function readData(db: Database.Database, table: "state_snapshots" | "skill_outputs", ids: readonly unknown[]): Map<unknown, unknown> {
  const column = table === "state_snapshots" ? "state_data" : "output_data";
  const fetch = db.prepare(`SELECT "${column}" AS data FROM "${table}" WHERE id = ?`).pluck();
  return readSnapshot(db, () => new Map(ids.map((id) => [id, fetch.get(id)])));
}

const SESSION_COLUMNS = [
  "session_id",
  "start_time",
  "end_time",
  "mode",
  "original_requirements",
  "status",
  "initial_branch",
  "metadata",
  "created_at",
] as const;

/** Sessions by id: those an append-only chunk names that were created after the state was read. */
export function readSessions(db: Database.Database, schema: SourceSchema, ids: readonly string[]): Row[] {
  if (!schema.hasTable("sessions") || ids.length === 0) return [];
  const one = db.prepare(`SELECT ${schema.select("sessions", SESSION_COLUMNS)} FROM sessions WHERE session_id = ?`);
  return readSnapshot(db, () => ids.map((id) => one.get(id) as Row | undefined).filter((row): row is Row => row !== undefined));
}

/**
 * Every table but the append-only ones, in the snapshot of the read transaction the caller holds
 * open on `db` for the whole pass (so parents and children agree): the large tables paged, the others
 * read whole. Documents (state data, skill output) are not read here; `octet_length` of them is, from
 * the record header, so an unchanged document is never read.
 */
export function readBazingaState(db: Database.Database, schema: SourceSchema): BazingaState {
  const all = (table: string, columns: readonly string[], order = "rowid"): Row[] =>
    schema.hasTable(table) ? (db.prepare(`SELECT ${schema.select(table, columns)} FROM "${table}" ORDER BY ${order}`).all() as Row[]) : [];
  const withLength = (table: "state_snapshots" | "skill_outputs", meta: readonly string[], data: string): Paged =>
    schema.hasTable(table) ? paged(db, schema, table, meta, `, octet_length("${data}") AS data_length`) : NO_ROWS;
  {
    const states = withLength("state_snapshots", ["id", "session_id", "group_id", "timestamp", "state_type"], "state_data");
    const skills = withLength("skill_outputs", ["id", "session_id", "timestamp", "skill_name", "agent_type", "group_id", "iteration"], "output_data");
    const pmStates = schema.hasTable("state_snapshots")
      ? (db
          .prepare(
            `SELECT ${schema.select("state_snapshots", ["id", "session_id", "timestamp"])} FROM state_snapshots s
             WHERE state_type = 'pm' AND id = (SELECT id FROM state_snapshots t WHERE t.session_id = s.session_id AND t.state_type = 'pm' ORDER BY t.timestamp DESC, t.id DESC LIMIT 1)
             ORDER BY s.id`,
          )
          .all() as Row[])
      : [];
    return {
      sessions: paged(db, schema, "sessions", SESSION_COLUMNS),
      taskGroups: paged(db, schema, "task_groups", TASK_GROUP_COLUMNS),
      criteria: paged(db, schema, "success_criteria", [
        "id",
        "session_id",
        "criterion",
        "status",
        "actual",
        "evidence",
        "required_for_completion",
        "created_at",
        "updated_at",
      ]),
      pmStates,
      states,
      skillOutputs: skills,
      plans: all("development_plans", [
        "id",
        "session_id",
        "original_prompt",
        "plan_text",
        "phases",
        "current_phase",
        "total_phases",
        "created_at",
        "updated_at",
        "metadata",
      ]),
      packages: all(
        "context_packages",
        [
          "id",
          "session_id",
          "group_id",
          "package_type",
          "file_path",
          "producer_agent",
          "priority",
          "summary",
          "size_bytes",
          "supersedes_id",
          "scope",
          "created_at",
        ],
        "id",
      ),
      consumers: all("context_package_consumers", ["id", "package_id", "agent_type", "consumed_at", "iteration"], "id"),
      errorPatterns: all(
        "error_patterns",
        ["pattern_hash", "project_id", "signature_json", "solution", "confidence", "occurrences", "lang", "last_seen", "created_at", "ttl_days"],
        "project_id, pattern_hash",
      ),
      strategies: all(
        "strategies",
        ["strategy_id", "project_id", "topic", "insight", "helpfulness", "lang", "framework", "last_seen", "created_at"],
        "strategy_id",
      ),
      consumption: all("consumption_scope", ["scope_id", "session_id", "group_id", "agent_type", "iteration", "package_id", "consumed_at"], "scope_id"),
      config: {
        transitions: all("workflow_transitions", [
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
        ]),
        markers: all("agent_markers", ["id", "agent_type", "required_markers", "workflow_markers"]),
        rules: all("workflow_special_rules", ["id", "rule_name", "description", "config"]),
        configuration: all("configuration", ["key", "value", "updated_at"]),
        models: all("model_config", ["agent_role", "model", "rationale", "updated_at"]),
      },
    };
  }
}

const LOG_COLUMNS = [
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
] as const;

const TASK_GROUP_COLUMNS = [
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
] as const;
