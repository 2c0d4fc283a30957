/**
 * The invariant checker: silent on ledgers written through the services and the importers, and
 * naming each invariant when a row is written past them (raw SQL, as a buggy writer or a hand
 * edit would — the paths the triggers still allow).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { type Db, createMemoryDb, openDatabase } from "@/db/client";
import { applyMigrations } from "@/db/migrate";
import { migrationsBefore } from "@/test/support/db-fixtures";
import { ACTORS, callerFor } from "@/test/support/api-helpers";
import { generateDemoData } from "@/server/demo/generate";
import { importBazinga } from "../import/bazinga/importer";
import { importShotsOnGoal } from "../import/shots-on-goal/importer";
import { copyFixture, removeTemps, tempDir } from "@/test/support/import-fixtures";
import { INVARIANTS, type Invariant } from "./findings";
import { checkLedger } from "./run";
import { writeCompletedSession, writeFullSession } from "@/test/support/check-ledger";

afterAll(removeTemps);

function onlyFindings(db: Db): Partial<Record<Invariant, number>> {
  const report = checkLedger(db, { limit: 1000 });
  return Object.fromEntries(Object.entries(report.counts).filter(([, n]) => n > 0));
}

describe("ledgers written by the real writers", () => {
  it("a session with rows in every table, written through the API, breaks no invariant", async () => {
    const db = createMemoryDb();
    await writeFullSession(db, "s1");
    await writeFullSession(db, "s2", { end: true });
    await writeCompletedSession(db, "s3", "enforce");
    await writeCompletedSession(db, "s4", "observe");
    const report = checkLedger(db);
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    // It looked at something: every table it holds to an invariant has rows here.
    for (const [table, n] of Object.entries(report.checked)) expect(n, table).toBeGreaterThan(0);
    expect(Object.keys(report.checked)).toEqual(
      expect.arrayContaining([
        "tasks",
        "task_transitions",
        "success_criteria",
        "criterion_updates",
        "orchestration_logs",
        "token_usage",
        "goal_gate_evaluations",
        "trust_scores",
        "merges",
      ]),
    );
  });

  it("the BAZINGA and shots-on-goal (v1, v2) fixtures, imported, break no invariant", async () => {
    const dir = tempDir();
    const db = openDatabase(path.join(dir, "ledger.db"));
    await importBazinga(db, copyFixture("bazinga-v19-sample.db", dir));
    await importShotsOnGoal(db, copyFixture("shots-on-goal-v1-sample.db", dir));
    await importShotsOnGoal(db, copyFixture("shots-on-goal-v2-sample.db", dir));
    const report = checkLedger(db);
    expect(report.findings).toEqual([]);
    expect(report.checked.tasks).toBeGreaterThan(10);
    expect(report.checked.tool_calls).toBeGreaterThan(100);
    db.$client.close();
  });

  it("demo data keeps every ledger invariant, every row with its event", async () => {
    const db = createMemoryDb();
    await generateDemoData(db, { sessions: 30, seed: 3, now: new Date("2026-11-21T12:00:00Z") });
    const report = checkLedger(db, { limit: 100_000 });
    expect(report.findings).toEqual([]);
    expect(Object.values(report.counts).every((n) => n === 0)).toBe(true);
  });

  it("reports each check as it is done, storage first, the last when the report is ready", async () => {
    const db = createMemoryDb();
    await generateDemoData(db, { sessions: 2, seed: 3, now: new Date("2026-11-21T12:00:00Z"), logsPerSession: 5 });
    const progress: unknown[] = [];
    checkLedger(db, { onProgress: (update) => progress.push({ ...update }) });
    expect(progress).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((done) => ({ phase: "checking", done, total: 7, unit: "checks" })));
  });
});

describe("each invariant, broken by hand, is named", () => {
  let db: Db;
  let sql: Db["$client"];
  beforeEach(async () => {
    db = createMemoryDb();
    await writeFullSession(db, "s1");
    sql = db.$client;
    expect(onlyFindings(db)).toEqual({});
  });

  const taskId = (key: string) => sql.prepare("SELECT id FROM tasks WHERE session_id = 's1' AND key = ?").pluck().get(key) as number;
  const addTaskEvent = (id: number, type: string) =>
    sql.prepare("INSERT INTO events (type, session_id, entity, entity_id, actor) VALUES (?, 's1', 'task', ?, 'x')").run(type, String(id));

  it("task.history: a status changed without its transition", () => {
    sql.prepare("UPDATE tasks SET status = 'in_progress' WHERE id = ?").run(taskId("reset"));
    expect(onlyFindings(db)).toEqual({ "task.history": 1 });
    expect(checkLedger(db).findings[0]).toMatchObject({
      invariant: "task.history",
      table: "tasks",
      id: String(taskId("reset")),
      message: "task reset (s1) is in_progress, but its last transition ended at pending",
    });
  });

  it("task.verified_by_non_claimant: verified without a verify move", () => {
    const id = taskId("claimed");
    sql
      .prepare(
        "INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, role) VALUES (?, 's1', 'report', 'claimed', 'verified', 'orchestrator_1', 'orchestrator')",
      )
      .run(id);
    addTaskEvent(id, "task.reported");
    sql.prepare("UPDATE tasks SET status = 'verified', verified_by = 'verifier_9', verification = 'verified' WHERE id = ?").run(id);
    expect(onlyFindings(db)).toEqual({ "task.verified_by_non_claimant": 1 });
    expect(checkLedger(db).findings[0]?.message).toBe("task claimed (s1) is verified (verified) but has no verify transition (reached verified by report)");
  });

  it("task.verified_by_non_claimant: the verify move made by the claimant", () => {
    const id = taskId("claimed");
    sql
      .prepare(
        "INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, principal_id, role, claimant) VALUES (?, 's1', 'verify', 'claimed', 'verified', 'developer_1', 'token:1', 'verifier', 'developer_1')",
      )
      .run(id);
    addTaskEvent(id, "task.verified");
    // The row names another verifier, so the trigger lets it through; the history says who it was.
    sql.prepare("UPDATE tasks SET status = 'verified', verified_by = 'verifier_9', verification = 'verified' WHERE id = ?").run(id);
    expect(onlyFindings(db)).toEqual({ "task.verified_by_non_claimant": 1 });
    expect(checkLedger(db).findings[0]?.message).toMatch(
      /^task claimed \(s1\): transition \d+ verified by its claimant developer_1; verified by the claimant's principal token:1$/,
    );
  });

  it("task.unverified_flagged: an observed completion with no unverified_completion event", async () => {
    const { callerFor, ACTORS } = await import("@/test/support/api-helpers");
    const orchestrator = callerFor(db, ACTORS.orchestrator);
    await orchestrator.session.create({ id: "obs", enforcement: "observe" });
    await orchestrator.task.create({ sessionId: "obs", key: "t", title: "t" });
    const id = sql.prepare("SELECT id FROM tasks WHERE session_id = 'obs'").pluck().get() as number;
    sql
      .prepare(
        "INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, role, verification) VALUES (?, 'obs', 'report', 'pending', 'completed', 'o', 'orchestrator', 'none')",
      )
      .run(id);
    sql.prepare("INSERT INTO events (type, session_id, entity, entity_id, actor) VALUES ('task.reported', 'obs', 'task', ?, 'o')").run(String(id));
    sql.prepare("UPDATE tasks SET status = 'completed', verification = 'none', completed_by = 'o' WHERE id = ?").run(id);
    expect(onlyFindings(db)).toEqual({ "task.unverified_flagged": 1 });
  });

  it("criterion.history: a criterion's status changed without an update row", () => {
    sql.prepare("UPDATE success_criteria SET status = 'met' WHERE criterion = 'Docs written'").run();
    expect(onlyFindings(db)).toEqual({ "criterion.history": 1 });
    expect(checkLedger(db).findings[0]?.message).toMatch(/^criterion "Docs written" \(s1\): status is "met", update \d+ says "pending"$/);
  });

  it("criterion.history: a verifier's finding with no verify update", () => {
    sql.prepare("UPDATE success_criteria SET verifier_status = 'failed' WHERE criterion = 'Docs written'").run();
    expect(onlyFindings(db)).toEqual({ "criterion.history": 1 });
  });

  it("event.missing: a task, a log row and a goal written without their events", () => {
    const task = Number(sql.prepare("INSERT INTO tasks (session_id, key, title) VALUES ('s1', 'silent', 'x')").run().lastInsertRowid);
    sql.prepare("INSERT INTO task_transitions (task_id, session_id, move, to_status, actor) VALUES (?, 's1', 'create', 'pending', 'x')").run(task);
    sql.prepare("INSERT INTO orchestration_logs (session_id, agent_type, content) VALUES ('s1', 'developer', 'unannounced')").run();
    sql.prepare("INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'quiet goal')").run();
    const report = checkLedger(db);
    expect(onlyFindings(db)).toEqual({ "event.missing": 4 });
    expect(report.findings.map((f) => f.message)).toEqual([
      `tasks row ${task} has no task.created event`,
      `task ${task} has 1 task_transitions rows but 0 matching events`,
      expect.stringMatching(/^goals row \d+ has no goal.created event$/),
      "session s1 has 5 orchestration_logs rows, its logs.appended events account for 4",
    ]);
  });

  it("session.rollups: a counter that disagrees with the rows", () => {
    sql.prepare("UPDATE sessions SET tasks_total = tasks_total + 1, criteria_required_met = 0 WHERE id = 's1'").run();
    expect(onlyFindings(db)).toEqual({ "session.rollups": 1 });
    expect(checkLedger(db).findings[0]?.message).toBe(
      "session s1 counters disagree with its rows: tasksTotal 4 (counted 3), criteriaRequiredMet 0 (counted 1)",
    );
  });

  it("session.search_index: a session missing from the index, one indexed with other requirements, a row of no session, a row twice", () => {
    // Written by hand, so without their events: only this invariant is looked at.
    sql.prepare("INSERT INTO sessions (id, requirements) VALUES ('s2', 'second'), ('s3', 'third')").run();
    expect(onlyFindings(db)["session.search_index"]).toBeUndefined();
    sql.prepare("DELETE FROM sessions_search WHERE id = 's1'").run();
    sql.prepare("UPDATE sessions_search SET requirements = 'other' WHERE id = 's2'").run();
    sql.prepare("INSERT INTO sessions_search (id, requirements) VALUES ('ghost', 'nobody'), ('s3', 'third'), ('s3', 'stale')").run();
    expect(onlyFindings(db)["session.search_index"]).toBe(5);
    expect(
      checkLedger(db)
        .findings.filter((f) => f.invariant === "session.search_index")
        .map((f) => [f.id, f.message]),
    ).toEqual([
      ["s1", "session s1 is missing from the search index"],
      ["s2", "session s2 is in the search index with other requirements than its own"],
      ["ghost", "the search index has a row for session ghost, which does not exist"],
      ["s3", "the search index has a stale row for session s3 besides its current one"],
      ["s3", "session s3 is in the search index 3 times"],
    ]);
  });

  describe("session.completion_checked: a session completed past the database's gate (an older version, or its triggers left out)", () => {
    const orchestrator = () => callerFor(db, ACTORS.orchestrator);
    /** Complete `id` by raw SQL with the gate's session triggers left out, as an older version could. */
    const completePastTheGate = (id: string) => {
      const names = ["sessions_completion_gate", "sessions_completion_record"];
      const definitions = names.map((name) => sql.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").pluck().get(name) as string);
      for (const name of names) sql.exec(`DROP TRIGGER ${name}`);
      sql.prepare("UPDATE sessions SET status = 'completed' WHERE id = ?").run(id);
      for (const definition of definitions) sql.exec(definition);
    };
    const found = () =>
      checkLedger(db)
        .findings.filter((f) => f.invariant === "session.completion_checked")
        .map((f) => [f.id, f.message]);
    const latestCheck = (id: string) => sql.prepare("SELECT max(id) FROM completion_checks WHERE session_id = ?").pluck().get(id) as number;

    it("an enforce session completed without any completion check", async () => {
      await orchestrator().session.create({ id: "s3" });
      completePastTheGate("s3");
      expect(onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(found()).toEqual([["s3", "session s3 (enforce) is completed without any completion check"]]);
    });

    it("an enforce session completed with only a rejected check", () => {
      // s1 has a claimed task, so its check (written by writeFullSession) rejected it.
      completePastTheGate("s1");
      expect(onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(found()).toEqual([["s1", `session s1 (enforce) is completed, but its latest completion check (${latestCheck("s1")}) rejected it`]]);
    });

    it("an enforce session completed on an accepted check that a later change made stale", async () => {
      const S = { sessionId: "s3" };
      await orchestrator().session.create({ id: "s3" });
      await orchestrator().criteria.save({ ...S, criteria: [{ criterion: "Tests pass", status: "met", evidence: "ci.log" }] });
      expect((await orchestrator().completion.check(S)).accepted).toBe(true);
      await orchestrator().criteria.update({ ...S, criterion: "Tests pass", status: "failed", actual: "40/42" });
      completePastTheGate("s3");
      expect(onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(found()).toEqual([
        [
          "s3",
          `session s3 (enforce) is completed, but its latest completion check (${latestCheck("s3")}) is stale: its criteria, tasks or goal verdicts changed after it, or it predates the database's completion gate`,
        ],
      ]);
    });

    it("an enforce session completed on a fresh accepted check the database did not record as the one it completed on", async () => {
      const S = { sessionId: "s3" };
      await orchestrator().session.create({ id: "s3" });
      await orchestrator().criteria.save({ ...S, criteria: [{ criterion: "Tests pass", status: "met", evidence: "ci.log" }] });
      await orchestrator().completion.check(S);
      completePastTheGate("s3");
      expect(found()).toEqual([
        [
          "s3",
          "session s3 (enforce) is completed without the database recording the completion check it completed on (written past the completion gate's triggers)",
        ],
      ]);
    });

    it("an observe session completed without any completion check", async () => {
      await orchestrator().session.create({ id: "s3", enforcement: "observe" });
      completePastTheGate("s3");
      expect(onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(found()).toEqual([["s3", "session s3 (observe) is completed without any completion check"]]);
    });

    it("sessions completed by a version before the gate, once migrated", () => {
      const dir = tempDir();
      const file = path.join(dir, "old.db");
      const old = new Database(file);
      applyMigrations(old, migrationsBefore(dir, "_session_completion_gate"));
      old.prepare("INSERT INTO sessions (id) VALUES ('old_checked'), ('old_unchecked')").run();
      const check = Number(
        old
          .prepare(
            "INSERT INTO completion_checks (session_id, accepted, reasons, met_count, total_count, actor) VALUES ('old_checked', 1, '[]', 1, 1, 'orchestrator')",
          )
          .run().lastInsertRowid,
      );
      old.prepare("UPDATE sessions SET status = 'completed'").run();
      old.close();
      const migrated = openDatabase(file);
      const report = checkLedger(migrated, { limit: 100 });
      migrated.$client.close();
      expect(report.findings.filter((f) => f.invariant === "session.completion_checked").map((f) => [f.id, f.message])).toEqual([
        [
          "old_checked",
          `session old_checked (enforce) is completed, but its latest completion check (${check}) is stale: its criteria, tasks or goal verdicts changed after it, or it predates the database's completion gate`,
        ],
        ["old_unchecked", "session old_unchecked (enforce) is completed without any completion check"],
      ]);
    });
  });

  it("database.foreign_keys: a row pointing at nothing", () => {
    sql.pragma("foreign_keys = OFF");
    sql.prepare("INSERT INTO attempt_tools (attempt_id, tool_id) VALUES (1, 9999)").run();
    sql.pragma("foreign_keys = ON");
    expect(onlyFindings(db)).toEqual({ "database.foreign_keys": 1 });
    expect(checkLedger(db).findings[0]?.message).toMatch(/^attempt_tools row \d+ refers to a tools row that does not exist$/);
  });

  it("database.integrity: a damaged page in the file", async () => {
    const dir = tempDir();
    const file = path.join(dir, "damaged.db");
    const source = openDatabase(file);
    await generateDemoData(source, { sessions: 5, seed: 1, now: new Date("2026-11-21T12:00:00Z") });
    const { root, pageSize } = {
      root: source.$client.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'token_usage_timestamp_idx'").pluck().get() as number,
      pageSize: source.$client.pragma("page_size", { simple: true }) as number,
    };
    source.$client.pragma("wal_checkpoint(TRUNCATE)");
    source.$client.close();
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(pageSize / 2, 0x5a), 0, pageSize / 2, (root - 1) * pageSize + pageSize / 2);
    fs.closeSync(fd);
    const damaged = openDatabase(file, { readonly: true });
    const report = checkLedger(damaged);
    damaged.$client.close();
    expect(report.ok).toBe(false);
    expect(report.counts["database.integrity"]).toBeGreaterThan(0);
    expect(report.findings.find((f) => f.invariant === "database.integrity")?.message).toMatch(/^integrity_check: /);
  });

  it("names every invariant it knows in its report, broken or not", () => {
    expect(Object.keys(checkLedger(db).counts)).toEqual([...INVARIANTS]);
  });
});
