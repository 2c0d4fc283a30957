/**
 * BAZINGA databases of schema versions 12 to 18, built here with the columns each version has
 * (001 and BAZINGA's migrations: v13 added the workflow tables, v14 the escalation counters, v15
 * component_path, later versions the review-loop counters, per-group state snapshots and event
 * idempotency keys): each is detected, reported and imported.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { describeEngines } from "@/test/support/engines";
import { importLedgers, ledgerNumber, ledgerRows, removeTemps, tempDir } from "@/test/support/import-fixtures";
import type { ImportReport } from "../report";
import { importBazinga } from "./importer";

// Each test imports a whole database into a fresh ledger: seconds, more on a busy machine.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
afterAll(removeTemps);

const freshLedger = importLedgers();

/** [column, the version that added it]: a column is in a version-N database when added <= N. */
type Columns = [string, number][];
const TABLES: Record<string, { columns: Columns; since: number }> = {
  sessions: {
    since: 0,
    columns: [
      ["session_id TEXT PRIMARY KEY", 0],
      ["start_time TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["end_time TIMESTAMP", 0],
      ["mode TEXT", 0],
      ["original_requirements TEXT", 0],
      ["status TEXT DEFAULT 'active'", 0],
      ["initial_branch TEXT DEFAULT 'main'", 5],
      ["metadata TEXT", 9],
      ["created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
    ],
  },
  orchestration_logs: {
    since: 0,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["iteration INTEGER", 0],
      ["agent_type TEXT NOT NULL", 0],
      ["agent_id TEXT", 0],
      ["content TEXT NOT NULL", 0],
      ["log_type TEXT DEFAULT 'interaction'", 8],
      ["reasoning_phase TEXT", 8],
      ["confidence_level TEXT", 8],
      ["references_json TEXT", 8],
      ["redacted INTEGER DEFAULT 0", 8],
      ["group_id TEXT", 8],
      ["event_subtype TEXT", 9],
      ["event_payload TEXT", 9],
      ["idempotency_key TEXT", 18],
    ],
  },
  state_snapshots: {
    since: 0,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["group_id TEXT NOT NULL DEFAULT 'global'", 17],
      ["timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["state_type TEXT", 0],
      ["state_data TEXT NOT NULL", 0],
    ],
  },
  task_groups: {
    since: 0,
    columns: [
      ["id TEXT NOT NULL", 0],
      ["session_id TEXT NOT NULL", 0],
      ["name TEXT NOT NULL", 0],
      ["status TEXT DEFAULT 'pending'", 0],
      ["assigned_to TEXT", 0],
      ["revision_count INTEGER DEFAULT 0", 0],
      ["last_review_status TEXT", 0],
      ["feature_branch TEXT", 5],
      ["merge_status TEXT", 5],
      ["complexity INTEGER", 5],
      ["initial_tier TEXT DEFAULT 'Developer'", 5],
      ["context_references TEXT", 6],
      ["specializations TEXT", 7],
      ["item_count INTEGER DEFAULT 1", 9],
      ["security_sensitive INTEGER DEFAULT 0", 14],
      ["qa_attempts INTEGER DEFAULT 0", 14],
      ["tl_review_attempts INTEGER DEFAULT 0", 14],
      ["component_path TEXT", 15],
      ["review_iteration INTEGER DEFAULT 1", 16],
      ["no_progress_count INTEGER DEFAULT 0", 16],
      ["blocking_issues_count INTEGER DEFAULT 0", 16],
      ["speckit_task_ids TEXT", 19],
      ["created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
    ],
  },
  token_usage: {
    since: 0,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["agent_type TEXT NOT NULL", 0],
      ["agent_id TEXT", 0],
      ["tokens_estimated INTEGER NOT NULL", 0],
    ],
  },
  skill_outputs: {
    since: 0,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["skill_name TEXT NOT NULL", 0],
      ["output_data TEXT NOT NULL", 0],
      ["agent_type TEXT", 11],
      ["group_id TEXT", 11],
      ["iteration INTEGER DEFAULT 1", 11],
    ],
  },
  decisions: {
    since: 0,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["iteration INTEGER", 0],
      ["decision_type TEXT NOT NULL", 0],
      ["decision_data TEXT NOT NULL", 0],
    ],
  },
  model_config: {
    since: 0,
    columns: [
      ["agent_role TEXT PRIMARY KEY", 0],
      ["model TEXT NOT NULL", 0],
      ["rationale TEXT", 0],
      ["updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
    ],
  },
  development_plans: {
    since: 3,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT UNIQUE NOT NULL", 0],
      ["original_prompt TEXT NOT NULL", 0],
      ["plan_text TEXT NOT NULL", 0],
      ["phases TEXT NOT NULL", 0],
      ["current_phase INTEGER", 0],
      ["total_phases INTEGER NOT NULL", 0],
      ["created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["metadata TEXT", 0],
    ],
  },
  success_criteria: {
    since: 4,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["criterion TEXT NOT NULL", 0],
      ["status TEXT DEFAULT 'pending'", 0],
      ["actual TEXT", 0],
      ["evidence TEXT", 0],
      ["required_for_completion BOOLEAN DEFAULT 1", 0],
      ["created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
      ["updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
    ],
  },
  context_packages: {
    since: 6,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["session_id TEXT NOT NULL", 0],
      ["group_id TEXT", 0],
      ["package_type TEXT NOT NULL", 0],
      ["file_path TEXT NOT NULL", 0],
      ["producer_agent TEXT NOT NULL", 0],
      ["priority TEXT NOT NULL DEFAULT 'medium'", 10],
      ["summary TEXT", 10],
      ["size_bytes INTEGER", 0],
      ["version INTEGER DEFAULT 1", 0],
      ["supersedes_id INTEGER", 0],
      ["scope TEXT DEFAULT 'group'", 0],
      ["created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP", 0],
    ],
  },
  context_package_consumers: {
    since: 6,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["package_id INTEGER NOT NULL", 0],
      ["agent_type TEXT NOT NULL", 0],
      ["consumed_at TIMESTAMP", 0],
      ["iteration INTEGER DEFAULT 1", 0],
    ],
  },
  workflow_transitions: {
    since: 13,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["current_agent TEXT NOT NULL", 0],
      ["response_status TEXT NOT NULL", 0],
      ["next_agent TEXT", 0],
      ["action TEXT NOT NULL", 0],
      ["include_context TEXT", 0],
      ["escalation_check INTEGER DEFAULT 0", 0],
      ["model_override TEXT", 0],
      ["fallback_agent TEXT", 0],
      ["bypass_qa INTEGER DEFAULT 0", 0],
      ["max_parallel INTEGER", 0],
      ["then_action TEXT", 0],
    ],
  },
  agent_markers: {
    since: 13,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["agent_type TEXT NOT NULL UNIQUE", 0],
      ["required_markers TEXT NOT NULL", 0],
      ["workflow_markers TEXT", 0],
    ],
  },
  workflow_special_rules: {
    since: 13,
    columns: [
      ["id INTEGER PRIMARY KEY AUTOINCREMENT", 0],
      ["rule_name TEXT NOT NULL UNIQUE", 0],
      ["description TEXT", 0],
      ["config TEXT", 0],
    ],
  },
  error_patterns: {
    since: 10,
    columns: [
      ["pattern_hash TEXT NOT NULL", 0],
      ["project_id TEXT NOT NULL", 0],
      ["signature_json TEXT NOT NULL", 0],
      ["solution TEXT NOT NULL", 0],
    ],
  },
};

const S = "bazinga_20250301_090000";

/** A version-`version` BAZINGA database with one row of each kind, as its own commands would write them. */
function buildDatabase(version: number, options: { declare?: number | null } = {}): string {
  const file = path.join(tempDir(), `bazinga-v${version}.db`);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  for (const [table, spec] of Object.entries(TABLES)) {
    if (spec.since > version) continue;
    const columns = spec.columns.filter(([, added]) => added <= version).map(([ddl]) => ddl);
    const key = table === "task_groups" ? ", PRIMARY KEY (id, session_id)" : "";
    db.exec(`CREATE TABLE ${table} (${columns.join(", ")}${key})`);
  }
  const declared = options.declare === undefined ? version : options.declare;
  if (declared !== null) {
    db.exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, description TEXT)");
    db.prepare("INSERT INTO schema_version (version, description) VALUES (?, ?)").run(declared, `Schema v${declared}`);
  }
  const has = (table: string, column: string) => (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).some((c) => c.name === column);
  db.prepare(
    "INSERT INTO sessions (session_id, mode, original_requirements, status, start_time, end_time) VALUES (?, 'simple', 'Add rate limiting', 'completed', '2025-03-01 09:00:00', '2025-03-01 11:00:00')",
  ).run(S);
  db.prepare(
    "INSERT INTO task_groups (id, session_id, name, status, assigned_to, created_at, updated_at) VALUES ('A', ?, 'Rate limiter', 'completed', 'developer_1', '2025-03-01 09:05:00', '2025-03-01 10:30:00')",
  ).run(S);
  db.prepare("INSERT INTO success_criteria (session_id, criterion, status, actual, evidence) VALUES (?, 'All tests passing', 'met', '40/40', 'ci.log')").run(S);
  db.prepare(
    "INSERT INTO orchestration_logs (session_id, agent_type, agent_id, content, iteration) VALUES (?, 'developer', 'developer_1', 'Implemented the limiter', 1)",
  ).run(S);
  db.prepare(
    "INSERT INTO orchestration_logs (session_id, agent_type, content, log_type, reasoning_phase, confidence_level, group_id) VALUES (?, 'developer', 'Token bucket; password=hunter2', 'reasoning', 'approach', 'high', 'A')",
  ).run(S);
  db.prepare(
    "INSERT INTO orchestration_logs (session_id, agent_type, content, log_type, event_subtype, event_payload, group_id) VALUES (?, 'system', 'Event: pm_bazinga', 'event', 'pm_bazinga', '{\"summary\":\"done\"}', 'global')",
  ).run(S);
  db.prepare("INSERT INTO token_usage (session_id, agent_type, tokens_estimated) VALUES (?, 'developer', 3200)").run(S);
  db.prepare(
    `INSERT INTO state_snapshots (session_id, state_type, state_data${has("state_snapshots", "group_id") ? ", group_id" : ""}) VALUES (?, 'pm', ?${has("state_snapshots", "group_id") ? ", 'global'" : ""})`,
  ).run(S, JSON.stringify({ success_criteria: [{ criterion: "Docs updated", status: "pending" }] }));
  db.prepare("INSERT INTO skill_outputs (session_id, skill_name, output_data) VALUES (?, 'lint_check', '{\"ok\":true}')").run(S);
  db.prepare("INSERT INTO decisions (session_id, iteration, decision_type, decision_data) VALUES (?, 1, 'spawn_agent', '{\"agent\":\"developer\"}')").run(S);
  db.prepare("INSERT INTO model_config (agent_role, model, rationale) VALUES ('developer', 'sonnet', 'Balanced')").run();
  db.prepare(
    "INSERT INTO development_plans (session_id, original_prompt, plan_text, phases, current_phase, total_phases) VALUES (?, 'Add rate limiting', '1. limiter', ?, 1, 1)",
  ).run(S, JSON.stringify([{ phase: 1, name: "Limiter", status: "completed" }]));
  const pkg = db
    .prepare(
      "INSERT INTO context_packages (session_id, group_id, package_type, file_path, producer_agent, summary) VALUES (?, 'A', 'research', 'ctx/limits.md', 'requirements_engineer', 'Limits')",
    )
    .run(S).lastInsertRowid;
  db.prepare("INSERT INTO context_package_consumers (package_id, agent_type, consumed_at) VALUES (?, 'developer', '2025-03-01 09:30:00')").run(pkg);
  if (version >= 13) {
    db.prepare(
      "INSERT INTO workflow_transitions (current_agent, response_status, next_agent, action, include_context) VALUES ('developer', 'READY_FOR_QA', 'qa_expert', 'spawn', '[\"dev_output\"]')",
    ).run();
    db.prepare("INSERT INTO agent_markers (agent_type, required_markers) VALUES ('developer', '[\"NO DELEGATION\"]')").run();
    db.prepare(
      "INSERT INTO workflow_special_rules (rule_name, description, config) VALUES ('escalation_after_failures', 'Escalate', '{\"threshold\":2}')",
    ).run();
  }
  db.close();
  return file;
}

const entity = (report: ImportReport, name: string) => report.entities.find((e) => e.entity === name)!;

describeEngines("BAZINGA's schema versions", (engine) => {
  describe.each([12, 13, 14, 15, 16, 17, 18])("a BAZINGA v%i database", (version) => {
    it("is detected as that version and imported whole", async () => {
      const file = buildDatabase(version);
      const db = await freshLedger(engine);
      const report = await importBazinga(db, file);
      expect(report.schema).toMatchObject({ version: `v${version}`, detectedFrom: "schema_version, and the columns agree", notes: [] });
      expect(report.notMapped.filter((n) => n.startsWith("table "))).toEqual([]);
      for (const name of [
        "sessions",
        "task groups",
        "success criteria",
        "migrated criteria",
        "interactions",
        "reasoning",
        "events",
        "completion claims",
        "token usage",
        "state snapshots",
        "skill outputs",
        "decisions",
        "development plans",
        "context packages",
        "context consumers",
        "model config",
      ]) {
        expect(entity(report, name), name).toMatchObject({ read: 1, imported: 1, skipped: 0 });
      }
      const workflow = version >= 13 ? 1 : 0;
      for (const name of ["workflow transitions", "agent markers", "special rules"])
        expect(entity(report, name), name).toMatchObject({ read: workflow, imported: workflow });
      expect(await ledgerNumber(db, "SELECT count(*) FROM workflow_transitions")).toBe(workflow);

      // A legacy completion: completed with verification 'none', flagged by its event and the session's rollup.
      expect(await ledgerRows(db, "SELECT status, verification, source_status FROM tasks WHERE session_id = ? AND key = 'A'", S)).toEqual([
        { status: "completed", verification: "none", source_status: "completed" },
      ]);
      expect(await ledgerNumber(db, "SELECT count(*) FROM events WHERE type = 'unverified_completion' AND session_id = ?", S)).toBe(1);
      expect(await ledgerNumber(db, "SELECT tasks_unverified FROM sessions WHERE id = ?", S)).toBe(1);
      // Older columns are simply absent: the task takes the ledger's defaults.
      expect(await ledgerRows(db, "SELECT qa_attempts, review_iteration, component_path FROM tasks WHERE key = 'A'")).toEqual([
        { qa_attempts: 0, review_iteration: 1, component_path: null },
      ]);
      expect(await ledgerNumber(db, "SELECT count(*) FROM orchestration_logs WHERE content LIKE '%hunter2%'")).toBe(0);
      expect(await ledgerNumber(db, "SELECT count(*) FROM context_package_consumers WHERE consumed_at IS NOT NULL")).toBe(1);
    });

    it("is recognised from its columns when it has no schema_version table", async () => {
      const report = await importBazinga(await freshLedger(engine), buildDatabase(version, { declare: null }));
      expect(report.schema).toMatchObject({ version: `v${version}`, detectedFrom: "no schema_version table: inferred from the columns" });
      expect(entity(report, "task groups")).toMatchObject({ read: 1, imported: 1, skipped: 0 });
    });
  });

  describe("a database whose schema_version and columns disagree", () => {
    it("says which columns the declared version should have and imports the ones present", async () => {
      const report = await importBazinga(await freshLedger(engine), buildDatabase(15, { declare: 19 }));
      expect(report.schema.version).toBe("v19");
      expect(report.schema.detectedFrom).toBe("schema_version; the columns match v15");
      expect(report.schema.notes).toEqual([
        "schema_version says 19 but the file lacks task_groups.review_iteration, task_groups.no_progress_count, task_groups.blocking_issues_count, state_snapshots.group_id, orchestration_logs.idempotency_key, task_groups.speckit_task_ids: those are imported as empty",
      ]);
      expect(entity(report, "task groups")).toMatchObject({ imported: 1, skipped: 0 });
    });

    it("names a version it does not know and still imports what it recognises", async () => {
      const report = await importBazinga(await freshLedger(engine), buildDatabase(18, { declare: 23 }));
      expect(report.schema.notes).toContain("version 23 is outside 12–19, the versions this importer knows: the tables and columns it recognises are imported");
      expect(entity(report, "sessions")).toMatchObject({ imported: 1 });
    });
  });
});
