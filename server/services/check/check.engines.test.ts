/**
 * The invariant checker, on SQLite and on PostgreSQL: silent on ledgers written through the
 * services and the importers (imported into a file, then copied to PostgreSQL with `proofgate
 * copy`'s service), and naming each invariant when a row is written past them (raw SQL, as a
 * buggy writer or a hand edit would: the paths the triggers still allow, or with the database's
 * enforcement switched off).
 */
import fs from "node:fs";
import path from "node:path";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { type Db, closeLedger, engineOf, openDatabase, openLedger, writeTransaction } from "@/db/client";
import { rawGet, rawRun } from "@/db/query";
import { sqliteTriggerDefinitions } from "@/db/triggers/definitions";
import { currentTriggers } from "@/db/triggers/pg-enforcement";
import { renderPg } from "@/db/triggers/trigger";
import { applyMigrations } from "@/db/migrate";
import { migrationsBefore } from "@/test/support/db-fixtures";
import { ACTORS, callerFor } from "@/test/support/api-helpers";
import { type Engine, describeEngines, ledgerFactory, pgAdminUrl } from "@/test/support/engines";
import { PG_TEMPLATE, createTestDatabase } from "@/test/support/pg-cluster";
import { generateDemoData } from "@/server/demo/generate";
import { importBazinga } from "../import/bazinga/importer";
import { importShotsOnGoal } from "../import/shots-on-goal/importer";
import { copyLedger } from "../copy/copy";
import { copyFixture, removeTemps, tempDir } from "@/test/support/import-fixtures";
import { INVARIANTS, type Invariant } from "./findings";
import { checkLedger } from "./run";
import { writeCompletedSession, writeFullSession } from "@/test/support/check-ledger";

const freshLedger = ledgerFactory();
const copies: Db[] = [];
afterAll(async () => {
  for (const db of copies.splice(0)) await closeLedger(db);
  removeTemps();
});

/** The ledger in `file` on `engine`: the file itself, or a PostgreSQL database it was copied into (as `proofgate copy` does). */
async function ledgerFromFile(engine: Engine, file: string): Promise<Db> {
  if (engine === "sqlite") return openDatabase(file);
  const target = await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE });
  await copyLedger({ from: file, to: target });
  const db = await openLedger(target, { migrate: false, poolSize: 2 });
  copies.push(db);
  return db;
}

async function onlyFindings(db: Db): Promise<Partial<Record<Invariant, number>>> {
  const report = await checkLedger(db, { limit: 1000 });
  return Object.fromEntries(Object.entries(report.counts).filter(([, n]) => n > 0));
}

/** The findings of one invariant, as [id, message]. */
async function findingsOf(db: Db, invariant: Invariant): Promise<[string | null, string][]> {
  return (await checkLedger(db, { limit: 1000 })).findings.filter((f) => f.invariant === invariant).map((f) => [f.id, f.message]);
}

/** Statements run with the named triggers out of the way: dropped and re-created from their own text on SQLite, disabled and enabled again on PostgreSQL. */
async function withoutTriggers(db: Db, triggers: Record<string, string>, statements: SQL[]): Promise<void> {
  if (engineOf(db) === "postgres") {
    await writeTransaction(db, async () => {
      for (const [name, table] of Object.entries(triggers)) await rawRun(db, sql.raw(`ALTER TABLE ${table} DISABLE TRIGGER ${name}`));
      for (const statement of statements) await rawRun(db, statement);
      for (const [name, table] of Object.entries(triggers)) await rawRun(db, sql.raw(`ALTER TABLE ${table} ENABLE TRIGGER ${name}`));
    });
    return;
  }
  const sqlite = db.$client;
  const names = Object.keys(triggers);
  const definitions = names.map((name) => sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").pluck().get(name) as string);
  for (const name of names) sqlite.exec(`DROP TRIGGER ${name}`);
  for (const statement of statements) await rawRun(db, statement);
  for (const definition of definitions) sqlite.exec(definition);
}

/** Statements run with the foreign keys unchecked: SQLite's `foreign_keys` off; PostgreSQL's `session_replication_role = replica` (every trigger off, the foreign keys' included). */
async function withoutForeignKeys(db: Db, statements: SQL[]): Promise<void> {
  if (engineOf(db) === "postgres") {
    await writeTransaction(db, async () => {
      await rawRun(db, sql`SET LOCAL session_replication_role = replica`);
      for (const statement of statements) await rawRun(db, statement);
    });
    return;
  }
  db.$client.pragma("foreign_keys = OFF");
  for (const statement of statements) await rawRun(db, statement);
  db.$client.pragma("foreign_keys = ON");
}

describeEngines("the invariant checker, on ledgers written by the real writers,", (engine) => {
  it("finds nothing wrong in sessions with rows in every table, written through the API", async () => {
    const db = await freshLedger(engine);
    await writeFullSession(db, "s1");
    await writeFullSession(db, "s2", { end: true });
    await writeCompletedSession(db, "s3", "enforce");
    await writeCompletedSession(db, "s4", "observe");
    const report = await checkLedger(db);
    expect(report.findings).toEqual([]);
    expect(report.ok).toBe(true);
    // It looked at something: every table it holds to an invariant has rows here.
    for (const [table, n] of Object.entries(report.checked)) expect(n, table).toBeGreaterThan(0);
    expect(Object.keys(report.checked)).toEqual(
      expect.arrayContaining([
        "triggers",
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

  it("finds nothing wrong in the BAZINGA and shots-on-goal (v1, v2) fixtures, imported, and counts the same rows as in the file imported into", async () => {
    const dir = tempDir();
    const file = path.join(dir, "ledger.db");
    const source = openDatabase(file);
    await importBazinga(source, copyFixture("bazinga-v19-sample.db", dir));
    await importShotsOnGoal(source, copyFixture("shots-on-goal-v1-sample.db", dir));
    await importShotsOnGoal(source, copyFixture("shots-on-goal-v2-sample.db", dir));
    const inFile = await checkLedger(source);
    source.$client.close();
    const db = await ledgerFromFile(engine, file);
    const report = await checkLedger(db);
    expect(report.findings).toEqual([]);
    expect(report.checked.tasks).toBeGreaterThan(10);
    expect(report.checked.tool_calls).toBeGreaterThan(100);
    // The rows of each ledger table; what is counted of the storage differs by engine (SQLite's search index is a table of its own).
    const storage = ["integrity_check", "foreign_key_check", "triggers", "foreign keys", "bt_index_check", "sessions_search", "sessions_search_idx"];
    const tables = (checked: Record<string, number>) => Object.fromEntries(Object.entries(checked).filter(([what]) => !storage.includes(what)));
    expect(tables(report.checked)).toEqual(tables(inFile.checked));
  });

  it("finds every row of demo data with its event, and every invariant kept", async () => {
    const file = path.join(tempDir(), "demo.db");
    const source = openDatabase(file);
    await generateDemoData(source, { sessions: engine === "sqlite" ? 30 : 12, seed: 3, now: new Date("2026-11-21T12:00:00Z") });
    source.$client.close();
    const db = await ledgerFromFile(engine, file);
    const report = await checkLedger(db, { limit: 100_000 });
    expect(report.findings).toEqual([]);
    expect(Object.values(report.counts).every((n) => n === 0)).toBe(true);
    expect(report.checked.tasks).toBeGreaterThan(100);
  });

  it("reports each check as it is done, storage first, the last when the report is ready", async () => {
    const db = await freshLedger(engine);
    await writeFullSession(db, "s1");
    const progress: unknown[] = [];
    await checkLedger(db, { onProgress: (update) => progress.push({ ...update }) });
    expect(progress).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((done) => ({ phase: "checking", done, total: 7, unit: "checks" })));
  });
});

describeEngines("each invariant, broken by hand, is named", (engine) => {
  let db: Db;
  beforeEach(async () => {
    db = await freshLedger(engine);
    await writeFullSession(db, "s1");
    expect(await onlyFindings(db)).toEqual({});
  });

  const run = (query: SQL) => rawRun(db, query);
  const taskId = async (key: string) => (await rawGet<{ id: number }>(db, sql`SELECT id FROM tasks WHERE session_id = 's1' AND key = ${key}`)).id;
  const addTaskEvent = (id: number, type: string) =>
    run(sql`INSERT INTO events (type, session_id, entity, entity_id, actor) VALUES (${type}, 's1', 'task', ${String(id)}, 'x')`);
  const inserted = async (query: SQL) => (await rawGet<{ id: number }>(db, query)).id;

  it("task.history: a status changed without its transition", async () => {
    await run(sql`UPDATE tasks SET status = 'in_progress' WHERE id = ${await taskId("reset")}`);
    expect(await onlyFindings(db)).toEqual({ "task.history": 1 });
    expect((await checkLedger(db)).findings[0]).toMatchObject({
      invariant: "task.history",
      table: "tasks",
      id: String(await taskId("reset")),
      message: "task reset (s1) is in_progress, but its last transition ended at pending",
    });
  });

  it("task.history: a transition deleted past the append-only trigger", async () => {
    const id = await taskId("done");
    await withoutTriggers(db, { task_transitions_no_delete: "task_transitions" }, [
      sql`DELETE FROM task_transitions WHERE task_id = ${id} AND move = 'verify'`,
    ]);
    expect(await onlyFindings(db)).toEqual({ "task.history": 1, "task.verified_by_non_claimant": 1 });
    expect(await findingsOf(db, "task.history")).toEqual([
      [String(id), expect.stringMatching(/^task done \(s1\): transition \d+ \(complete\) starts from verified, but the one before ended at claimed$/)],
    ]);
  });

  it("task.verified_by_non_claimant: verified without a verify move", async () => {
    const id = await taskId("claimed");
    await run(
      sql`INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, role) VALUES (${id}, 's1', 'report', 'claimed', 'verified', 'orchestrator_1', 'orchestrator')`,
    );
    await addTaskEvent(id, "task.reported");
    await run(sql`UPDATE tasks SET status = 'verified', verified_by = 'verifier_9', verification = 'verified' WHERE id = ${id}`);
    expect(await onlyFindings(db)).toEqual({ "task.verified_by_non_claimant": 1 });
    expect((await checkLedger(db)).findings[0]?.message).toBe(
      "task claimed (s1) is verified (verified) but has no verify transition (reached verified by report)",
    );
  });

  it("task.verified_by_non_claimant: the verify move made by the claimant", async () => {
    const id = await taskId("claimed");
    await run(
      sql`INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, principal_id, role, claimant) VALUES (${id}, 's1', 'verify', 'claimed', 'verified', 'developer_1', 'token:1', 'verifier', 'developer_1')`,
    );
    await addTaskEvent(id, "task.verified");
    // The row names another verifier, so the trigger lets it through; the history says who it was.
    await run(sql`UPDATE tasks SET status = 'verified', verified_by = 'verifier_9', verification = 'verified' WHERE id = ${id}`);
    expect(await onlyFindings(db)).toEqual({ "task.verified_by_non_claimant": 1 });
    expect((await checkLedger(db)).findings[0]?.message).toMatch(
      /^task claimed \(s1\): transition \d+ verified by its claimant developer_1; verified by the claimant's principal token:1$/,
    );
  });

  it("task.unverified_flagged: an observed completion with no unverified_completion event", async () => {
    const orchestrator = callerFor(db, ACTORS.orchestrator);
    await orchestrator.session.create({ id: "obs", enforcement: "observe" });
    await orchestrator.task.create({ sessionId: "obs", key: "t", title: "t" });
    const id = (await rawGet<{ id: number }>(db, sql`SELECT id FROM tasks WHERE session_id = 'obs'`)).id;
    await run(
      sql`INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor, role, verification) VALUES (${id}, 'obs', 'report', 'pending', 'completed', 'o', 'orchestrator', 'none')`,
    );
    await run(sql`INSERT INTO events (type, session_id, entity, entity_id, actor) VALUES ('task.reported', 'obs', 'task', ${String(id)}, 'o')`);
    await run(sql`UPDATE tasks SET status = 'completed', verification = 'none', completed_by = 'o' WHERE id = ${id}`);
    expect(await onlyFindings(db)).toEqual({ "task.unverified_flagged": 1 });
  });

  it("criterion.history: a criterion's status changed without an update row", async () => {
    await run(sql`UPDATE success_criteria SET status = 'met' WHERE criterion = 'Docs written'`);
    expect(await onlyFindings(db)).toEqual({ "criterion.history": 1 });
    expect((await checkLedger(db)).findings[0]?.message).toMatch(/^criterion "Docs written" \(s1\): status is "met", update \d+ says "pending"$/);
  });

  it("criterion.history: a verifier's finding with no verify update", async () => {
    await run(sql`UPDATE success_criteria SET verifier_status = 'failed' WHERE criterion = 'Docs written'`);
    expect(await onlyFindings(db)).toEqual({ "criterion.history": 1 });
  });

  it("event.missing: a task, a log row and a goal written without their events", async () => {
    const task = await inserted(sql`INSERT INTO tasks (session_id, key, title) VALUES ('s1', 'silent', 'x') RETURNING id`);
    await run(sql`INSERT INTO task_transitions (task_id, session_id, move, to_status, actor) VALUES (${task}, 's1', 'create', 'pending', 'x')`);
    await run(sql`INSERT INTO orchestration_logs (session_id, agent_type, content) VALUES ('s1', 'developer', 'unannounced')`);
    await run(sql`INSERT INTO goals (session_id, goal_text) VALUES ('s1', 'quiet goal')`);
    const report = await checkLedger(db);
    expect(await onlyFindings(db)).toEqual({ "event.missing": 4 });
    expect(report.findings.map((f) => f.message)).toEqual([
      `tasks row ${task} has no task.created event`,
      `task ${task} has 1 task_transitions rows but 0 matching events`,
      expect.stringMatching(/^goals row \d+ has no goal.created event$/),
      "session s1 has 5 orchestration_logs rows, its logs.appended events account for 4",
    ]);
  });

  it("event.missing: an event deleted past the append-only trigger", async () => {
    await withoutTriggers(db, { events_no_delete: "events" }, [sql`DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE type = 'tokens.logged')`]);
    expect(await findingsOf(db, "event.missing")).toEqual([[null, "session s1 has 2 token_usage rows, its tokens.logged/logs.appended events account for 1"]]);
  });

  it("session.rollups: a counter that disagrees with the rows", async () => {
    await run(sql`UPDATE sessions SET tasks_total = tasks_total + 1, criteria_required_met = 0 WHERE id = 's1'`);
    expect(await onlyFindings(db)).toEqual({ "session.rollups": 1 });
    expect((await checkLedger(db)).findings[0]?.message).toBe(
      "session s1 counters disagree with its rows: tasksTotal 4 (counted 3), criteriaRequiredMet 0 (counted 1)",
    );
  });

  describe("session.completion_checked: a session completed past the database's gate (an older version, or its triggers left out)", () => {
    const orchestrator = () => callerFor(db, ACTORS.orchestrator);
    /** Complete `id` by raw SQL with the gate's session triggers left out, as an older version could. */
    const completePastTheGate = (id: string) =>
      withoutTriggers(db, { sessions_completion_gate: "sessions", sessions_completion_record: "sessions" }, [
        sql`UPDATE sessions SET status = 'completed' WHERE id = ${id}`,
      ]);
    const found = () => findingsOf(db, "session.completion_checked");
    const latestCheck = async (id: string) => (await rawGet<{ id: number }>(db, sql`SELECT max(id) AS id FROM completion_checks WHERE session_id = ${id}`)).id;

    it("an enforce session completed without any completion check", async () => {
      await orchestrator().session.create({ id: "s3" });
      await completePastTheGate("s3");
      expect(await onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(await found()).toEqual([["s3", "session s3 (enforce) is completed without any completion check"]]);
    });

    it("an enforce session completed with only a rejected check", async () => {
      // s1 has a claimed task, so its check (written by writeFullSession) rejected it.
      await completePastTheGate("s1");
      expect(await onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(await found()).toEqual([["s1", `session s1 (enforce) is completed, but its latest completion check (${await latestCheck("s1")}) rejected it`]]);
    });

    it("an enforce session completed on an accepted check that a later change made stale", async () => {
      const S = { sessionId: "s3" };
      await orchestrator().session.create({ id: "s3" });
      await orchestrator().criteria.save({ ...S, criteria: [{ criterion: "Tests pass", status: "met", evidence: "ci.log" }] });
      expect((await orchestrator().completion.check(S)).accepted).toBe(true);
      await orchestrator().criteria.update({ ...S, criterion: "Tests pass", status: "failed", actual: "40/42" });
      await completePastTheGate("s3");
      expect(await onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(await found()).toEqual([
        [
          "s3",
          `session s3 (enforce) is completed, but its latest completion check (${await latestCheck("s3")}) is stale: its criteria, tasks or goal verdicts changed after it, or it predates the database's completion gate`,
        ],
      ]);
    });

    it("an enforce session completed on a fresh accepted check the database did not record as the one it completed on", async () => {
      const S = { sessionId: "s3" };
      await orchestrator().session.create({ id: "s3" });
      await orchestrator().criteria.save({ ...S, criteria: [{ criterion: "Tests pass", status: "met", evidence: "ci.log" }] });
      await orchestrator().completion.check(S);
      await completePastTheGate("s3");
      expect(await found()).toEqual([
        [
          "s3",
          "session s3 (enforce) is completed without the database recording the completion check it completed on (written past the completion gate's triggers)",
        ],
      ]);
    });

    it("an observe session completed without any completion check", async () => {
      await orchestrator().session.create({ id: "s3", enforcement: "observe" });
      await completePastTheGate("s3");
      expect(await onlyFindings(db)).toEqual({ "session.completion_checked": 1 });
      expect(await found()).toEqual([["s3", "session s3 (observe) is completed without any completion check"]]);
    });
  });

  it("database.foreign_keys: a row pointing at nothing", async () => {
    const attempt = (await rawGet<{ id: number }>(db, sql`SELECT min(id) AS id FROM attempts`)).id;
    await withoutForeignKeys(db, [sql`INSERT INTO attempt_tools (attempt_id, tool_id) VALUES (${attempt}, 9999)`]);
    const id = (await rawGet<{ id: number }>(db, sql`SELECT id FROM attempt_tools WHERE tool_id = 9999`)).id;
    expect(await onlyFindings(db)).toEqual({ "database.foreign_keys": 1 });
    expect(await findingsOf(db, "database.foreign_keys")).toEqual([[String(id), `attempt_tools row ${id} refers to a tools row that does not exist`]]);
  });

  it("database.triggers: an enforcement trigger dropped", async () => {
    await run(sql.raw(engine === "postgres" ? "DROP TRIGGER tasks_no_delete ON tasks" : "DROP TRIGGER tasks_no_delete"));
    expect(await onlyFindings(db)).toEqual({ "database.triggers": 1 });
    expect((await checkLedger(db)).findings[0]).toMatchObject({
      invariant: "database.triggers",
      table: "tasks",
      id: null,
      message: "enforcement trigger tasks_no_delete on tasks is missing",
    });
  });

  it("database.triggers: an enforcement trigger altered by hand to let everything through is named", async () => {
    if (engine === "postgres")
      await run(sql.raw("CREATE OR REPLACE FUNCTION pg_tasks_no_delete() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  RETURN OLD;\nEND\n$$"));
    else {
      await run(sql.raw("DROP TRIGGER tasks_no_delete"));
      await run(sql.raw("CREATE TRIGGER tasks_no_delete BEFORE DELETE ON tasks WHEN 0 BEGIN SELECT RAISE(ABORT, 'no'); END"));
    }
    expect(await onlyFindings(db)).toEqual({ "database.triggers": 1 });
    expect(await findingsOf(db, "database.triggers")).toEqual([
      [
        null,
        "enforcement trigger tasks_no_delete on tasks differs from the current definition (altered by hand, or an older version's): its rule may not hold",
      ],
    ]);
    // The trigger re-created from its current definition: nothing to report.
    if (engine === "postgres") {
      for (const statement of renderPg(currentTriggers().find((t) => t.name === "tasks_no_delete")!)) await run(sql.raw(statement));
    } else {
      await run(sql.raw("DROP TRIGGER tasks_no_delete"));
      await run(sql.raw(sqliteTriggerDefinitions().find((t) => t.name === "tasks_no_delete")!.sql));
    }
    expect(await onlyFindings(db)).toEqual({});
  });

  it("database.integrity: a check that cannot read the database is a finding, and the checks after it still run", async () => {
    await run(sql`ALTER TABLE task_transitions RENAME COLUMN claimant TO claimant_renamed`);
    await run(sql`UPDATE sessions SET tasks_total = tasks_total + 1 WHERE id = 's1'`);
    // SQLite rewrites the triggers that name the column, so they no longer match their definitions; PL/pgSQL bodies are kept as written.
    expect(await onlyFindings(db)).toEqual({ "database.integrity": 1, "session.rollups": 1, ...(engine === "postgres" ? {} : { "database.triggers": 2 }) });
    expect(await findingsOf(db, "database.integrity")).toEqual([[null, expect.stringMatching(/^the tasks check could not read the database: .*claimant/)]]);
  });

  it("names every invariant it knows in its report, broken or not", async () => {
    expect(Object.keys((await checkLedger(db)).counts)).toEqual([...INVARIANTS]);
  });
});

describeEngines("what the engine holds below the ledger", (engine) => {
  let db: Db;
  beforeEach(async () => {
    db = await freshLedger(engine);
    await writeFullSession(db, "s1");
  });
  const run = (query: SQL) => rawRun(db, query);

  if (engine === "postgres") {
    it("database.triggers: enforcement triggers disabled, or left to fire only under replication", async () => {
      await run(sql`ALTER TABLE events DISABLE TRIGGER events_no_update`);
      await run(sql`ALTER TABLE tasks ENABLE REPLICA TRIGGER tasks_no_delete`);
      expect(await onlyFindings(db)).toEqual({ "database.triggers": 2 });
      expect(await findingsOf(db, "database.triggers")).toEqual([
        [null, "enforcement trigger events_no_update on events is disabled: writes on events go unchecked"],
        [null, "enforcement trigger tasks_no_delete on tasks is disabled: writes on tasks go unchecked"],
      ]);
    });

    it("database.foreign_keys: a foreign key re-added NOT VALID, and the row it let in", async () => {
      const constraint = (
        await rawGet<{ name: string }>(
          db,
          sql`SELECT conname AS name FROM pg_constraint WHERE conrelid = 'attempt_tools'::regclass AND confrelid = 'tools'::regclass AND contype = 'f'`,
        )
      ).name;
      await run(sql.raw(`ALTER TABLE attempt_tools DROP CONSTRAINT ${constraint}`));
      const attempt = (await rawGet<{ id: number }>(db, sql`SELECT min(id) AS id FROM attempts`)).id;
      await run(sql`INSERT INTO attempt_tools (attempt_id, tool_id) VALUES (${attempt}, 9999)`);
      await run(sql.raw(`ALTER TABLE attempt_tools ADD CONSTRAINT ${constraint} FOREIGN KEY (tool_id) REFERENCES tools(id) NOT VALID`));
      expect(await findingsOf(db, "database.foreign_keys")).toEqual([
        [null, `foreign key constraint ${constraint} on attempt_tools is not validated: rows written before it were not checked`],
        [expect.stringMatching(/^\d+$/), expect.stringMatching(/^attempt_tools row \d+ refers to a tools row that does not exist$/)],
      ]);
    });

    it("database.integrity: with amcheck installed, every B-tree index is checked against its table", async () => {
      await run(sql`CREATE EXTENSION amcheck`);
      const report = await checkLedger(db);
      expect(report.findings).toEqual([]);
      expect(report.checked.bt_index_check).toBeGreaterThan(50);
    });

    it("session.search_index: the sessions search index dropped", async () => {
      await run(sql`DROP INDEX sessions_search_idx`);
      expect(await onlyFindings(db)).toEqual({ "session.search_index": 1 });
      expect(await findingsOf(db, "session.search_index")).toEqual([
        [null, "the sessions search index sessions_search_idx is missing: searches read every session"],
      ]);
    });
  } else {
    it("session.search_index: a session missing from the index, one indexed with other requirements, a row of no session, a row twice", async () => {
      // Written by hand, so without their events: only this invariant is looked at.
      await run(sql`INSERT INTO sessions (id, requirements) VALUES ('s2', 'second'), ('s3', 'third')`);
      expect((await onlyFindings(db))["session.search_index"]).toBeUndefined();
      await run(sql`DELETE FROM sessions_search WHERE id = 's1'`);
      await run(sql`UPDATE sessions_search SET requirements = 'other' WHERE id = 's2'`);
      await run(sql`INSERT INTO sessions_search (id, requirements) VALUES ('ghost', 'nobody'), ('s3', 'third'), ('s3', 'stale')`);
      expect((await onlyFindings(db))["session.search_index"]).toBe(5);
      expect(await findingsOf(db, "session.search_index")).toEqual([
        ["s1", "session s1 is missing from the search index"],
        ["s2", "session s2 is in the search index with other requirements than its own"],
        ["ghost", "the search index has a row for session ghost, which does not exist"],
        ["s3", "the search index has a stale row for session s3 besides its current one"],
        ["s3", "session s3 is in the search index 3 times"],
      ]);
    });

    it("session.completion_checked: sessions completed by a version before the gate, once migrated", async () => {
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
      const report = await checkLedger(migrated, { limit: 100 });
      migrated.$client.close();
      expect(report.findings.filter((f) => f.invariant === "session.completion_checked").map((f) => [f.id, f.message])).toEqual([
        [
          "old_checked",
          `session old_checked (enforce) is completed, but its latest completion check (${check}) is stale: its criteria, tasks or goal verdicts changed after it, or it predates the database's completion gate`,
        ],
        ["old_unchecked", "session old_unchecked (enforce) is completed without any completion check"],
      ]);
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
      const report = await checkLedger(damaged);
      damaged.$client.close();
      expect(report.ok).toBe(false);
      expect(report.counts["database.integrity"]).toBeGreaterThan(0);
      expect(report.findings.find((f) => f.invariant === "database.integrity")?.message).toMatch(/^integrity_check: /);
    });
  }
});
