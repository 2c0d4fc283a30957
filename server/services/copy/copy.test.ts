/**
 * `copyLedger` between a SQLite file and a PostgreSQL database of the throwaway test cluster: a
 * demo ledger goes SQLite → PostgreSQL → a fresh SQLite file and comes back with the same content
 * hashes; a target that holds rows, or a row the target refuses half-way, leaves the target as it
 * was; identities continue after the copied ids; booleans and timestamps keep their values.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "@/db/client";
import { ConflictError, ValidationError } from "@/server/domain/errors";
import { generateDemoData } from "@/server/demo/generate";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { CopyFailedError, copyLedger, ledgerHashes } from "./copy";
import { NOT_COPIED, copyPlan } from "./plan";

const adminUrl = inject("pgAdminUrl");
const template = inject("pgTemplate");

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-copy-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A demo ledger (the generator `npm start` uses), small. */
async function demoLedger(name: string): Promise<string> {
  const file = path.join(dir, name);
  const db = openDatabase(file);
  await generateDemoData(db, { sessions: 4, seed: 11, logsPerSession: 12, now: new Date("2026-11-20T12:00:00Z") });
  db.$client.close();
  return file;
}

const freshPg = () => createTestDatabase(adminUrl!, undefined, { template });

async function pgQuery<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Every ledger table's row count on a PostgreSQL database. */
async function pgCounts(url: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of copyPlan()) out[table.name] = Number((await pgQuery<{ n: string }>(url, `SELECT count(*) AS n FROM "${table.name}"`))[0]!.n);
  return out;
}

describe("the copy plan", () => {
  it("orders every table after the tables it references, deferring only self-references and the goals → attempts edge", () => {
    const plan = copyPlan();
    const position = new Map(plan.map((t, i) => [t.name, i]));
    // Every table of a migrated file but the search index's, the bookkeeping's and the sign-in limits', once.
    const migrated = openDatabase(":memory:").$client;
    const tables = migrated
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sessions_search%' AND name NOT LIKE '%sqlite_%' AND name <> '__drizzle_migrations'",
      )
      .pluck()
      .all() as string[];
    migrated.close();
    expect(plan.map((t) => t.name).sort()).toEqual(tables.filter((name) => !NOT_COPIED.has(name)).sort());
    expect([...NOT_COPIED].every((name) => tables.includes(name))).toBe(true);
    expect(plan.flatMap((t) => t.deferred.map((c) => `${t.name}.${c}`)).sort()).toEqual([
      "branches.parent_branch_id",
      "context_packages.supersedes_id",
      "goals.created_by_attempt_id",
      "goals.parent_goal_id",
      "success_criteria.supersedes_id",
    ]);
    for (const [before, after] of [
      ["sessions", "tasks"],
      ["tasks", "task_transitions"],
      ["goals", "branches"],
      ["branches", "worktrees"],
      ["worktrees", "attempts"],
      ["users", "api_tokens"],
    ] as const)
      expect(position.get(before)!, `${before} before ${after}`).toBeLessThan(position.get(after)!);
  });
});

describe.skipIf(!adminUrl)("copyLedger (SQLite ⇄ PostgreSQL)", () => {
  let source: string;
  let original: Awaited<ReturnType<typeof ledgerHashes>>;
  beforeAll(async () => {
    source = await demoLedger("demo.db");
    original = await ledgerHashes(source);
  }, 120_000);

  it("copies a demo ledger SQLite → PostgreSQL → a fresh SQLite file with every table's rows and content hash unchanged", async () => {
    const url = await freshPg();
    const there = await copyLedger({ from: source, to: url });
    expect(there).toMatchObject({ verified: true, dryRun: false, engines: { from: "sqlite", to: "postgres" } });
    expect(there.rows).toBeGreaterThan(500);
    expect(Object.fromEntries(there.tables.map((t) => [t.table, { rows: t.rows, hash: t.hash }]))).toEqual(original);
    expect(await ledgerHashes(url)).toEqual(original);

    const back = path.join(dir, "back.db");
    const returned = await copyLedger({ from: url, to: back });
    expect(returned).toMatchObject({ verified: true, engines: { from: "postgres", to: "sqlite" } });
    expect(await ledgerHashes(back)).toEqual(original);
    // The rules are back on the file (the dropped triggers were re-created) and the search index covers the copied sessions.
    const sqlite = new Database(back, { readonly: true });
    const triggers = (file: string) =>
      new Database(file, { readonly: true }).prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
    expect(sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all()).toEqual(triggers(source));
    expect(sqlite.prepare("SELECT count(*) FROM sessions_search").pluck().get()).toBe(original.sessions!.rows);
    sqlite.close();
  });

  it("migrates a new, empty database first; keeps booleans and epoch-ms timestamps; PostgreSQL's identities continue after the copied ids", async () => {
    const url = await createTestDatabase(adminUrl!);
    await copyLedger({ from: source, to: url });
    const sqlite = new Database(source, { readonly: true });
    const task = sqlite
      .prepare("SELECT id, reset_requested, security_sensitive, created_at, updated_at FROM tasks WHERE reset_requested = 1 LIMIT 1")
      .get() as {
      id: number;
      created_at: number;
      updated_at: number;
    };
    expect(task, "the demo ledger has a task with a reset request").toBeDefined();
    // (pg's process-global parser, installed by db/pg/client.ts, reads bigint as a number.)
    const [copied] = await pgQuery<{ reset_requested: boolean; created_at: number; updated_at: number }>(
      url,
      "SELECT reset_requested, created_at, updated_at FROM tasks WHERE id = $1",
      [task.id],
    );
    expect(copied).toEqual({ reset_requested: true, created_at: task.created_at, updated_at: task.updated_at });
    expect(Number((await pgQuery<{ n: string }>(url, "SELECT count(*) AS n FROM tasks WHERE reset_requested"))[0]!.n)).toBe(
      sqlite.prepare("SELECT count(*) FROM tasks WHERE reset_requested = 1").pluck().get(),
    );
    const maxEvent = sqlite.prepare("SELECT max(id) FROM events").pluck().get() as number;
    sqlite.close();
    const [inserted] = await pgQuery<{ id: string }>(url, "INSERT INTO events (type, entity, actor) VALUES ('copy.test', 'test', 'tester') RETURNING id");
    expect(Number(inserted!.id)).toBe(maxEvent + 1);
  });

  it("copies into a database with the ledger's triggers (migration 0001: history is not refused, rollups not counted twice) and leaves them on", async () => {
    const url = await freshPg();
    const userTriggers = async () =>
      (
        await pgQuery<{ all: number; off: number }>(
          url,
          "SELECT count(*) AS all, count(*) FILTER (WHERE tgenabled = 'D') AS off FROM pg_trigger WHERE NOT tgisinternal",
        )
      )[0]!;
    expect((await userTriggers()).all).toBeGreaterThan(50);
    await copyLedger({ from: source, to: url });
    expect(await ledgerHashes(url)).toEqual(original);
    expect((await userTriggers()).off).toBe(0);
    await expect(pgQuery(url, "UPDATE task_transitions SET reason = 'rewritten' WHERE id = 1")).rejects.toThrow(/append_only/);
  });

  it("keeps ids a source handed out and no longer has (rows removed since) from being handed out again, both ways", async () => {
    const gappy = path.join(dir, "gappy.db");
    fs.copyFileSync(source, gappy);
    const sqlite = new Database(gappy);
    const max = sqlite.prepare("SELECT coalesce(max(id), 0) FROM agent_markers").pluck().get() as number;
    sqlite.prepare("INSERT INTO agent_markers (agent_type, required_markers) VALUES ('removed-later', '[]')").run();
    sqlite.prepare("DELETE FROM agent_markers WHERE agent_type = 'removed-later'").run();
    sqlite.close();
    const url = await freshPg();
    await copyLedger({ from: gappy, to: url });
    expect(
      (await pgQuery<{ id: number }>(url, "INSERT INTO agent_markers (agent_type, required_markers) VALUES ('new-on-pg', '[]') RETURNING id"))[0]!.id,
    ).toBe(max + 2);
    await pgQuery(url, "DELETE FROM agent_markers WHERE agent_type = 'new-on-pg'");
    const back = path.join(dir, "gappy-back.db");
    await copyLedger({ from: url, to: back });
    const file = new Database(back);
    expect(file.prepare("INSERT INTO agent_markers (agent_type, required_markers) VALUES ('new-in-file', '[]') RETURNING id").pluck().get()).toBe(max + 3);
    file.close();
  });

  it("refuses a target that already holds ledger rows, naming the table, and writes nothing", async () => {
    const url = await freshPg();
    await pgQuery(url, "INSERT INTO sessions (id, requirements) VALUES ('already-here', 'x')");
    const before = await pgCounts(url);
    const refused = copyLedger({ from: source, to: url });
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(refused).rejects.toThrow(/already holds ledger rows \(table sessions\).*nothing was written/);
    expect(await pgCounts(url)).toEqual(before);
    expect(before.sessions).toBe(1);
  });

  it("rolls the target back when it refuses a row half-way (a PostgreSQL CHECK the source file breaks)", async () => {
    const broken = path.join(dir, "broken.db");
    fs.copyFileSync(source, broken);
    const sqlite = new Database(broken);
    sqlite.pragma("ignore_check_constraints = ON");
    const sessionId = sqlite.prepare("SELECT id FROM sessions LIMIT 1").pluck().get();
    sqlite.prepare("INSERT INTO token_usage (session_id, agent_type, tokens_estimated) VALUES (?, 'developer', -5)").run(sessionId);
    sqlite.close();
    const url = await freshPg();
    const failing = copyLedger({ from: broken, to: url });
    await expect(failing).rejects.toThrow(CopyFailedError);
    await expect(failing).rejects.toThrow(/token_usage.*token_usage_tokens_check.*rolled back/);
    const counts = await pgCounts(url);
    expect(Object.entries(counts).filter(([, n]) => n > 0)).toEqual([]);
    // The identities are as they were: the first id handed out is 1.
    expect((await pgQuery<{ id: string }>(url, "INSERT INTO events (type, entity, actor) VALUES ('t', 't', 't') RETURNING id"))[0]!.id).toBe(1);
  });

  it("refuses a source value its column's type does not allow (text in an integer column), leaving a SQLite target empty", async () => {
    const odd = path.join(dir, "odd.db");
    fs.copyFileSync(source, odd);
    const sqlite = new Database(odd);
    sqlite
      .prepare("INSERT INTO token_usage (session_id, agent_type, tokens_estimated) VALUES (?, 'developer', 'lots')")
      .run(sqlite.prepare("SELECT id FROM sessions LIMIT 1").pluck().get());
    sqlite.close();
    const target = path.join(dir, "odd-copy.db");
    const failing = copyLedger({ from: odd, to: target });
    await expect(failing).rejects.toThrow(CopyFailedError);
    // (The file's rollup trigger has already carried the text into analytics_rollups, which comes first.)
    await expect(failing).rejects.toThrow(/the source holds a value .* \w+\.\w+: not an integer \(integer column\): "lots".*rolled back/);
    const copy = new Database(target, { readonly: true });
    expect(copyPlan().filter((t) => copy.prepare(`SELECT count(*) FROM "${t.name}"`).pluck().get() !== 0)).toEqual([]);
    copy.close();
  });

  it("says which role may switch the triggers off when the target's tables belong to another one, writing nothing", async () => {
    const url = await freshPg();
    const role = `copier_${process.pid}`;
    await pgQuery(url, `CREATE ROLE ${role} LOGIN`);
    await pgQuery(
      url,
      `GRANT USAGE, CREATE ON SCHEMA public, drizzle TO ${role}; GRANT ALL ON ALL TABLES IN SCHEMA public, drizzle TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public, drizzle TO ${role}`,
    );
    // It may open and migrate the database (nothing is pending), read and write every table; the tables stay the migrating role's.
    await pgQuery(url, `GRANT CREATE ON DATABASE "${decodeURIComponent(new URL(url).pathname.slice(1))}" TO ${role}`);
    const asRole = new URL(url);
    asRole.username = role;
    const failing = copyLedger({ from: source, to: asRole.toString() });
    await expect(failing).rejects.toThrow(CopyFailedError);
    await expect(failing).rejects.toThrow(/cannot switch the triggers of \w+ off for the copy \(must be owner of table \w+\): connect as the role that owns/);
    expect(Object.entries(await pgCounts(url)).filter(([, n]) => n > 0)).toEqual([]);
  });

  it("leaves a deployment's sign-in limits behind: rows in the target's do not block the copy, and the source's are not carried over", async () => {
    const limited = path.join(dir, "limited.db");
    fs.copyFileSync(source, limited);
    const sqlite = new Database(limited);
    sqlite.prepare("INSERT INTO auth_rate_limits (key, count, window_start) VALUES ('198.51.100.1|/sign-in/email', 6, 1)").run();
    sqlite.close();
    const url = await freshPg();
    // A sign-in tried on the new server before the copy.
    await pgQuery(url, "INSERT INTO auth_rate_limits (key, count, window_start) VALUES ('203.0.113.1|/sign-in/email', 1, 2)");
    expect((await copyLedger({ from: limited, to: url, dryRun: true })).targetNotEmpty).toBeNull();
    await copyLedger({ from: limited, to: url });
    expect(await pgQuery(url, "SELECT key FROM auth_rate_limits")).toEqual([{ key: "203.0.113.1|/sign-in/email" }]);
  });

  it("refuses the same database as source and target, and a source that is not there", async () => {
    await expect(copyLedger({ from: source, to: source })).rejects.toThrow(ValidationError);
    await expect(copyLedger({ from: source, to: `${path.dirname(source)}/../${path.basename(dir)}/demo.db` })).rejects.toThrow(/same database/);
    await expect(copyLedger({ from: path.join(dir, "nope.db"), to: path.join(dir, "x.db") })).rejects.toThrow(/--from: no database at/);
    expect(fs.existsSync(path.join(dir, "x.db"))).toBe(false);
    const url = await freshPg();
    await expect(copyLedger({ from: url, to: `${url}&application_name=x` })).rejects.toThrow(/same database/);
  });

  it("a dry run counts the rows and checks the target without creating or writing anything", async () => {
    const target = path.join(dir, "dry.db");
    const dry = await copyLedger({ from: source, to: target, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, verified: false, targetNotEmpty: null });
    expect(Object.fromEntries(dry.tables.map((t) => [t.table, t.rows]))).toEqual(Object.fromEntries(Object.entries(original).map(([t, v]) => [t, v.rows])));
    expect(fs.existsSync(target)).toBe(false);
    const firstWithRows = copyPlan().find((t) => original[t.name]!.rows > 0)!.name;
    expect((await copyLedger({ from: source, to: source.replace("demo.db", "back.db"), dryRun: true })).targetNotEmpty).toBe(firstWithRows);
  });
});
