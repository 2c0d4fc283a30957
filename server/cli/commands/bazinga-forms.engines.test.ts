/**
 * Every `bazinga_db.py` call form BAZINGA's prompts, skills and scripts use (bazinga-forms.ts),
 * replayed in a parallel-mode run's order against an observe session: each form BAZINGA's real CLI
 * accepts exits 0 here, each it refuses is refused here too (exit 2, naming the argument), and what
 * is stored is what the calls reported. docs/bazinga-commands.md is this list as a table.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { SaveCriteriaInput } from "@/server/services/criteria/schemas";
import { ALL_FORMS, type BazingaForm, FORM_FILES, expectedExit } from "./bazinga-forms";
import { type Ledger, SPAWN, cli, closeReaders, ledgerCount, ledgerRows, ledgerWorkspace, removeWorkspaces } from "@/test/support/cli-harness";
import { type Engine, describeEngines } from "@/test/support/engines";
import { bazingaCommandsDoc } from "@/scripts/gen-bazinga-commands-doc";

vi.setConfig({ testTimeout: SPAWN ? 300_000 : 60_000 });
afterEach(closeReaders);
afterAll(removeWorkspaces);

const S = "bazinga_20260112_143022";
const S2 = "bazinga_20260112_090000";
const ENV = { PROOFGATE_ENFORCEMENT: "observe" };

interface Replay {
  db: Ledger;
  results: { form: BazingaForm; code: number | null; stdout: string; stderr: string }[];
}

/** Run the forms in order in one workspace, filling placeholders (ids captured from earlier output). */
async function replay(engine: Engine, forms: readonly BazingaForm[]): Promise<Replay> {
  const db = await ledgerWorkspace(engine);
  const { dir } = db;
  for (const [name, text] of Object.entries(FORM_FILES)) fs.writeFileSync(path.join(dir, name), text);
  const values: Record<string, string> = { S, S2 };
  const fill = (arg: string) =>
    arg.replace(/\{FILE:([^}]+)\}/g, (_, name: string) => path.join(dir, name)).replace(/\{(S2?|PKG|HASH)\}/g, (_, key: string) => values[key] ?? `{${key}}`);
  const results: Replay["results"] = [];
  for (const form of forms) {
    const run = await cli([...form.args.map(fill), ...db.flag], { env: ENV });
    if (form.capture === "PKG") values.PKG = /#(\d+)/.exec(run.stdout)?.[1] ?? "";
    if (form.capture === "HASH") values.HASH = /\b([0-9a-f]{64})\b/.exec(run.stdout)?.[1] ?? "";
    results.push({ form, ...run });
  }
  return { db, results };
}

const label = (f: BazingaForm) => `${f.command} ${f.form}`;

/** The commands that work on a SQLite file only: on PostgreSQL they are refused, saying what to use instead (PostgreSQL's own checks). */
const SQLITE_ONLY = new Set(["integrity-check"]);
const onlyOnSqlite = (engine: Engine, f: BazingaForm) => engine === "postgres" && SQLITE_ONLY.has(f.command);

describeEngines("BAZINGA's other argument forms through the command line", (engine) => {
  describe("BAZINGA's call forms, replayed in a parallel-mode run (observe session)", () => {
    let run: Replay;
    // One replay, read by every test below (in any order): the replay is the run, each test one of its checks.
    beforeAll(
      async () => {
        run = await replay(engine, ALL_FORMS);
      },
      SPAWN ? 300_000 : 120_000,
    );

    it("accepts every form bazinga_db.py v19 accepts (exit 0, nothing on stderr), and extract-strategies, which v19 itself fails", () => {
      const accepted = run.results.filter((r) => expectedExit(r.form) === 0 && !onlyOnSqlite(engine, r.form));
      expect(accepted.map((r) => ({ form: label(r.form), code: r.code, stderr: r.stderr }))).toEqual(
        accepted.map((r) => ({ form: label(r.form), code: 0, stderr: "" })),
      );
      // On PostgreSQL BAZINGA's integrity-check is refused, naming PostgreSQL's own checks; its reads through `query` run.
      const sqliteOnly = run.results.filter((r) => expectedExit(r.form) === 0 && onlyOnSqlite(engine, r.form));
      expect(sqliteOnly.map((r) => r.form.command).sort()).toEqual(engine === "postgres" ? ["integrity-check"] : []);
      for (const r of sqliteOnly) {
        expect({ form: label(r.form), code: r.code }).toEqual({ form: label(r.form), code: 2 });
        expect(r.stderr).toContain(`proofgate: ${r.form.command}: works on a SQLite file, not on a PostgreSQL database;`);
      }
    });

    it("refuses, as bazinga_db.py does, the forms its documentation shows but its parser refuses — naming the argument, storing nothing", async () => {
      const refused = run.results.filter((r) => expectedExit(r.form) === 2);
      expect(refused.length).toBeGreaterThan(0);
      for (const r of refused) {
        expect({ form: label(r.form), code: r.code }).toEqual({ form: label(r.form), code: 2 });
        expect(r.stderr).toMatch(/proofgate: |error: /);
      }
      // The refused save-reasoning calls (numeric confidence, --tokens) stored no project_manager reasoning.
      expect(await ledgerCount(run.db, "SELECT * FROM orchestration_logs WHERE log_type = 'reasoning' AND agent_type = 'project_manager'")).toBe(0);
    });

    it("stores the criteria with their priority (the list reads in that order) and every extra field in metadata", async () => {
      expect(await ledgerRows(run.db, "SELECT criterion, status, actual, evidence, priority, metadata FROM success_criteria ORDER BY id")).toEqual([
        { criterion: "All tests pass", status: "met", actual: "12/12 passing", evidence: "bazinga/artifacts/test-results.txt", priority: 2, metadata: null },
        // The positional update-success-criterion form is refused by bazinga_db.py and here: still pending.
        { criterion: "Code review approved", status: "pending", actual: null, evidence: null, priority: 1, metadata: '{"owner":"tech_lead"}' },
      ]);
      const listed = JSON.parse((await cli(["get-success-criteria", S, ...run.db.flag, "--json"])).stdout) as { criterion: string }[];
      expect(listed.map((c) => c.criterion)).toEqual(["Code review approved", "All tests pass"]);
    });

    it("stores the task groups as reported: statuses with their original word, the flags, the context references", async () => {
      const pkg = (await ledgerRows<{ id: number }>(run.db, "SELECT id FROM context_packages"))[0]!.id;
      expect(
        await ledgerRows(
          run.db,
          sql`SELECT key, status, source_status, verification, assignee, complexity, tier, item_count, component_path, CAST(security_sensitive AS integer) AS security_sensitive, specializations, qa_attempts, tl_review_attempts, review_iteration, last_review_status, context_references, metadata FROM tasks WHERE session_id = ${S} ORDER BY key`,
        ),
      ).toEqual([
        {
          key: "CALC",
          status: "completed",
          source_status: "completed",
          verification: "none",
          assignee: "developer_1",
          complexity: 5,
          tier: "Developer",
          item_count: 3,
          component_path: "src/calc",
          security_sensitive: 0,
          specializations: '["01-languages/python.md"]',
          qa_attempts: 1,
          tl_review_attempts: 1,
          review_iteration: 1,
          last_review_status: "APPROVED",
          context_references: `[${pkg}]`,
          metadata: null,
        },
        // A review word Proofgate's column does not know, and the SpecKit ids, are kept in metadata.
        expect.objectContaining({
          key: "UI",
          status: "blocked",
          source_status: "failed",
          assignee: "developer_2",
          last_review_status: null,
          metadata: '{"last_review_status":"NEEDS_WORK","speckit_task_ids":["T001","T002"]}',
        }),
      ]);
    });

    it("stores the logs, reasoning, state, skill outputs, plan and events the calls reported", async () => {
      expect(await ledgerRows(run.db, "SELECT agent_type, content, agent_id FROM orchestration_logs WHERE log_type = 'interaction' ORDER BY id")).toEqual([
        { agent_type: "orchestrator", content: "Spawning the project manager", agent_id: null },
        { agent_type: "project_manager", content: "Planning: 2 groups, parallel mode", agent_id: "project_manager_1" },
      ]);
      expect(
        await ledgerRows(
          run.db,
          "SELECT group_id, agent_type, reasoning_phase AS phase, confidence_level AS confidence, content FROM orchestration_logs WHERE log_type = 'reasoning' ORDER BY id",
        ),
      ).toEqual([
        { group_id: "CALC", agent_type: "developer", phase: "understanding", confidence: "medium", content: FORM_FILES["reasoning.txt"] },
        { group_id: "CALC", agent_type: "developer", phase: "completion", confidence: "high", content: "Done: 12 tests pass" },
      ]);
      expect(await ledgerRows(run.db, "SELECT skill_name, agent_type, group_id FROM skill_outputs ORDER BY id")).toEqual([
        { skill_name: "specialization-loader", agent_type: null, group_id: null },
        { skill_name: "pattern-miner", agent_type: "developer", group_id: null },
        { skill_name: "lint-check", agent_type: "developer", group_id: "CALC" },
      ]);
      expect(await ledgerRows(run.db, "SELECT state_type, group_id FROM state_snapshots ORDER BY id")).toEqual([
        { state_type: "orchestrator", group_id: "global" },
        { state_type: "investigation", group_id: "CALC" },
      ]);
      const phases = JSON.parse((await ledgerRows<{ phases: string }>(run.db, "SELECT phases FROM development_plans"))[0]!.phases) as Record<string, unknown>[];
      expect(phases[0]).toMatchObject({ phase: 1, status: "completed", progress_percent: 100 });
      expect(await ledgerRows(run.db, "SELECT event_subtype, idempotency_key FROM orchestration_logs WHERE log_type = 'event' ORDER BY id")).toEqual([
        { event_subtype: "tl_issues", idempotency_key: `${S}|CALC|tl_issues|1` },
        { event_subtype: "tl_issue_responses", idempotency_key: null },
        { event_subtype: "investigation_iteration", idempotency_key: expect.any(String) },
        { event_subtype: "pm_bazinga", idempotency_key: null },
        { event_subtype: "validator_verdict", idempotency_key: null },
      ]);
      expect(await ledgerCount(run.db, "SELECT * FROM context_package_consumers WHERE consumed_at IS NOT NULL")).toBe(2);
      expect(await ledgerRows(run.db, "SELECT id, status, enforcement FROM sessions ORDER BY id")).toEqual([
        { id: S2, status: "active", enforcement: "observe" },
        { id: S, status: "completed", enforcement: "observe" },
      ]);
    });
    it("fills BAZINGA's context-engineering tables, read with `query` exactly as its prompts read them, secrets redacted", async () => {
      const read =
        "SELECT signature_json, solution, confidence, occurrences FROM error_patterns WHERE project_id = 'calc' AND confidence > 0.5 ORDER BY confidence DESC, occurrences DESC LIMIT 3";
      type Pattern = { signature_json: string; solution: string; confidence: number; occurrences: number };
      const assembler = await cli(["--quiet", "query", read, ...run.db.flag]);
      expect({ code: assembler.code, stderr: assembler.stderr }).toEqual({ code: 0, stderr: "" });
      const patterns = JSON.parse(assembler.stdout) as Pattern[];
      // update-error-confidence … success took it from 0.5 to 0.6.
      expect(patterns).toEqual([{ signature_json: expect.any(String), solution: "Fixed off-by-one in multiply", confidence: 0.6, occurrences: 1 }]);
      const signature = JSON.parse(patterns[0]!.signature_json) as Record<string, unknown>;
      expect(signature).toEqual({
        error_type: "test",
        message_pattern: expect.stringContaining("AssertionError: 2 != 3 (token [REDACTED"),
        context_hints: ["math"],
        stack_pattern: ["calc.py"],
      });
      expect(patterns[0]!.signature_json).not.toContain("sk-abcdefghij");
      expect(await ledgerRows(run.db, "SELECT CAST(redacted AS integer) AS redacted, lang, ttl_days FROM error_patterns")).toEqual([
        { redacted: 1, lang: "python", ttl_days: 90 },
      ]);

      expect(
        await ledgerRows(
          run.db,
          "SELECT strategy_id, project_id, topic, insight, helpfulness, lang, framework FROM strategies WHERE project_id = 'calc' ORDER BY strategy_id",
        ),
      ).toEqual([
        // extract-strategies turned the developer's completion reasoning into an implementation strategy.
        {
          strategy_id: expect.stringMatching(/^calc_implementation_[0-9a-f]{16}$/),
          project_id: "calc",
          topic: "implementation",
          insight: "Done: 12 tests pass",
          helpfulness: 1,
          lang: "python",
          framework: "pytest",
        },
        // Saved once (1), then update-strategy-helpfulness (+1).
        {
          strategy_id: "strat_tdd",
          project_id: "calc",
          topic: "implementation",
          insight: "Write the failing test first",
          helpfulness: 2,
          lang: "python",
          framework: "pytest",
        },
      ]);
      const pkg = (await ledgerRows<{ id: number }>(run.db, "SELECT id FROM context_packages"))[0]!.id;
      expect(await ledgerRows(run.db, "SELECT session_id, group_id, agent_type, iteration, package_id FROM consumption_scope ORDER BY group_id")).toEqual([
        { session_id: S, group_id: "CALC", agent_type: "developer", iteration: 1, package_id: pkg },
        // The context skill's argument order, taken as bazinga_db.py takes it (which then drops it on its CHECK; kept here).
        { session_id: S, group_id: "developer", agent_type: "context_package", iteration: pkg, package_id: 450 },
      ]);
      expect(
        await ledgerCount(
          run.db,
          "SELECT * FROM events WHERE type IN ('error_pattern.saved', 'error_pattern.confidence_updated', 'strategy.saved', 'strategy.helpfulness_updated', 'strategy.extracted', 'consumption.saved')",
        ),
      ).toBeGreaterThanOrEqual(7);
    });
  });

  describe("the translation from BAZINGA's input to the API's", () => {
    it("notes what it kept as metadata on stderr only with --verbose; the API itself still refuses unknown fields", async () => {
      const db = await ledgerWorkspace(engine);
      await cli(["create-session", S, "simple", "req", ...db.flag]);
      const criteria = '[{"criterion":"Docs updated","priority":"high","owner":"pm"}]';
      const quiet = await cli(["save-success-criteria", S, criteria, ...db.flag]);
      expect(quiet).toMatchObject({ code: 0, stderr: "" });
      const verbose = await cli(["--verbose", "save-success-criteria", S, criteria, ...db.flag]);
      expect(verbose.code).toBe(0);
      expect(verbose.stderr).toBe("proofgate: note: criteria_json[0]: owner, priority kept in the criterion's metadata\n");
      // A priority that is not a whole number is kept as given, in metadata.
      expect(await ledgerRows(db, "SELECT priority, metadata FROM success_criteria")).toEqual([
        { priority: null, metadata: '{"owner":"pm","priority":"high"}' },
      ]);

      const strict = SaveCriteriaInput.safeParse({ sessionId: S, criteria: [{ criterion: "Docs updated", owner: "pm" }] });
      expect(strict.success).toBe(false);
      expect(strict.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["owner"] });
    });
  });
});

describe("docs/bazinga-commands.md", () => {
  it("is the table of these forms (regenerate: npx tsx scripts/gen-bazinga-commands-doc.ts)", () => {
    const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/bazinga-commands.md"), "utf8");
    expect(doc).toBe(bazingaCommandsDoc());
  });
});
