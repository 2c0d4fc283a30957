/**
 * The `proofgate` command as scripts and agents see it: the real executable (bin/proofgate.mjs
 * running the bundle vitest's global setup built), one child process per call, each test in its
 * own temporary directory; exit codes, stdout and stderr are the interface.
 */
// flake-risks wait: kills a child that hangs (45 s): a hang guard
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it, vi } from "vitest";
import * as schema from "@/db/schema";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = path.join(ROOT, "bin", "proofgate.mjs");
const MIGRATIONS = (JSON.parse(fs.readFileSync(path.join(ROOT, "db", "migrations", "meta", "_journal.json"), "utf8")) as { entries: unknown[] }).entries.length;

// Each test spawns Node a few times; on a loaded two-core machine that outlasts the 5 s default.
vi.setConfig({ testTimeout: 60_000 });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `proofgate <args>` in `cwd` with PROOFGATE_DB unset unless given. A call that has not exited
 * after `killAfterMs` is killed (code null): a guard against hangs, not a measurement.
 */
function proofgate(args: string[], options: { cwd: string; env?: Record<string, string>; killAfterMs?: number }): Promise<Run> {
  const env = { ...process.env };
  delete env.PROOFGATE_DB;
  Object.assign(env, options.env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const guard = setTimeout(() => child.kill("SIGKILL"), options.killAfterMs ?? 45_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

function schemaTableNames(): string[] {
  return Object.values(schema as Record<string, unknown>)
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => getTableName(table))
    .sort();
}

function query<T>(file: string, sql: string): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).pluck().get() as T;
  } finally {
    db.close();
  }
}

function countRows(file: string, table: string): number {
  return query<number>(file, `SELECT count(*) FROM "${table}"`);
}

const workspaces: string[] = [];

/** A fresh temporary directory for one test, and a database path inside it (not created). */
function workspace(): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-cli-"));
  workspaces.push(dir);
  return { dir, db: path.join(dir, "x.db") };
}

afterAll(() => {
  for (const dir of workspaces) fs.rmSync(dir, { recursive: true, force: true });
});

// Every test has its own directory and process, so they run side by side.
describe.concurrent("proofgate", () => {
  describe("migrate", () => {
    it("creates every table the schema defines, then finds nothing left to apply", async () => {
      const { dir, db } = workspace();
      const first = await proofgate(["migrate", "--db", db], { cwd: dir });
      expect(first).toMatchObject({ code: 0, stderr: "" });
      expect(first.stdout).toContain(`${db}: ${MIGRATIONS} migrations applied`);

      const sqlite = new Database(db, { readonly: true });
      const tables = (
        sqlite
          .prepare(
            "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name",
          )
          .pluck()
          .all() as string[]
      ).sort();
      const journalMode = sqlite.pragma("journal_mode", { simple: true });
      sqlite.close();
      const expected = schemaTableNames();
      expect(expected.length).toBeGreaterThan(30);
      expect(tables).toEqual(expected);
      expect(journalMode).toBe("wal");

      const second = await proofgate(["migrate", "--db", db], { cwd: dir });
      expect(second).toMatchObject({ code: 0, stderr: "" });
      expect(second.stdout).toContain(": 0 migrations applied");
    });

    it("prints one parseable JSON document with --json", async () => {
      const { dir, db } = workspace();
      const first = await proofgate(["migrate", "--db", db, "--json"], { cwd: dir });
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({ database: db, applied: MIGRATIONS, tables: schemaTableNames().length + 1 });
      const second = await proofgate(["--json", "migrate", "--db", db], { cwd: dir });
      expect(second.code).toBe(0);
      expect(JSON.parse(second.stdout)).toMatchObject({ database: db, applied: 0 });
    });

    it("uses PROOFGATE_DB when --db is not given, and --db over PROOFGATE_DB", async () => {
      const { dir, db } = workspace();
      const fromEnv = path.join(dir, "y.db");
      const viaEnv = await proofgate(["migrate"], { cwd: dir, env: { PROOFGATE_DB: fromEnv } });
      expect(viaEnv.code).toBe(0);
      expect(viaEnv.stdout).toContain(`${fromEnv}: ${MIGRATIONS} migrations applied`);
      expect(fs.existsSync(fromEnv)).toBe(true);
      expect(fs.existsSync(path.join(dir, "data"))).toBe(false);

      const viaFlag = await proofgate(["migrate", "--db", db], { cwd: dir, env: { PROOFGATE_DB: fromEnv } });
      expect(viaFlag.code).toBe(0);
      expect(viaFlag.stdout).toContain(`${db}: ${MIGRATIONS} migrations applied`);
    });

    it("defaults to ./data/proofgate.db under the working directory", async () => {
      const { dir } = workspace();
      const run = await proofgate(["migrate", "--json"], { cwd: dir });
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ database: "./data/proofgate.db", applied: MIGRATIONS });
      expect(fs.existsSync(path.join(dir, "data", "proofgate.db"))).toBe(true);
    });

    it("refuses extra arguments with exit 2", async () => {
      const { dir, db } = workspace();
      const run = await proofgate(["migrate", "now", "--db", db], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("too many arguments");
      expect(fs.existsSync(db)).toBe(false);
    });
  });

  describe("demo", () => {
    it("fills a new database with the asked number of sessions", async () => {
      const { dir, db } = workspace();
      const run = await proofgate(["demo", "--db", db, "--sessions", "5"], { cwd: dir });
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/: 5 demo sessions \(seed 1\)/);
      expect(countRows(db, "sessions")).toBe(5);
      expect(countRows(db, "tasks")).toBeGreaterThan(5);
      expect(query<number>(db, "SELECT count(*) FROM sessions WHERE id LIKE 'demo_1_%'")).toBe(5);
    });

    it("prints the row counts with --json", async () => {
      const { dir, db } = workspace();
      const run = await proofgate(["demo", "--db", db, "--sessions", "3", "--seed", "7", "--json"], { cwd: dir });
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.stdout) as { database: string; sessions: number; seed: number; firstSessionId: string; rows: Record<string, number> };
      expect(summary).toMatchObject({ database: db, sessions: 3, seed: 7, firstSessionId: "demo_7_00001" });
      expect(summary.rows.sessions).toBe(3);
      expect(Object.keys(summary.rows)).toEqual(expect.arrayContaining(["tasks", "task_transitions", "success_criteria", "goals", "attempts", "events"]));
      for (const [table, n] of Object.entries(summary.rows)) expect(n, table).toBe(countRows(db, table));
    });

    it("adds nothing with --if-empty when the database already has sessions, and fills an empty one", async () => {
      const { dir, db } = workspace();
      expect((await proofgate(["demo", "--db", db, "--sessions", "5"], { cwd: dir })).code).toBe(0);
      const events = countRows(db, "events");

      const skipped = await proofgate(["demo", "--db", db, "--if-empty", "--seed", "2"], { cwd: dir });
      expect(skipped.code).toBe(0);
      expect(skipped.stdout).toContain("already has 5 sessions");
      const skippedJson = await proofgate(["demo", "--db", db, "--if-empty", "--seed", "2", "--json"], { cwd: dir });
      expect(JSON.parse(skippedJson.stdout)).toEqual({ database: db, skipped: true, existingSessions: 5 });
      expect(countRows(db, "sessions")).toBe(5);
      expect(countRows(db, "events")).toBe(events);

      const empty = path.join(dir, "empty.db");
      const filled = await proofgate(["demo", "--db", empty, "--if-empty", "--sessions", "2"], { cwd: dir });
      expect(filled.code).toBe(0);
      expect(countRows(empty, "sessions")).toBe(2);
    });

    it("refuses a seed already used in the database with exit 2 naming seed, and accepts another", async () => {
      const { dir, db } = workspace();
      expect((await proofgate(["demo", "--db", db, "--sessions", "2"], { cwd: dir })).code).toBe(0);
      const again = await proofgate(["demo", "--db", db, "--sessions", "2"], { cwd: dir });
      expect(again.code).toBe(2);
      expect(again.stdout).toBe("");
      expect(again.stderr).toMatch(/^proofgate: seed: .*seed 1/);
      expect(countRows(db, "sessions")).toBe(2);

      const json = await proofgate(["demo", "--db", db, "--sessions", "2", "--json"], { cwd: dir });
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: { rule: "demo.seed_used", message: expect.stringMatching(/^seed: /) } });

      const other = await proofgate(["demo", "--db", db, "--sessions", "2", "--seed", "2"], { cwd: dir });
      expect(other.code).toBe(0);
      expect(countRows(db, "sessions")).toBe(4);
    });

    it.each([
      ["--sessions", "abc"],
      ["--sessions", "0"],
      ["--sessions", "100001"],
      ["--sessions", "1.5"],
      ["--seed", "-1"],
      ["--seed", "1.5"],
    ])("refuses %s %s with exit 2 naming the option, before touching the database", async (option, value) => {
      const { dir, db } = workspace();
      const run = await proofgate(["demo", "--db", db, option, value], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(`option '${option} <`);
      expect(run.stderr).toContain(`'${value}' is invalid`);
      expect(fs.existsSync(db)).toBe(false);
    });

    it("reports a bad option as JSON on stderr with --json", async () => {
      const { dir, db } = workspace();
      const run = await proofgate(["--json", "demo", "--db", db, "--sessions", "abc"], { cwd: dir });
      expect(run.code).toBe(2);
      expect(JSON.parse(run.stderr)).toMatchObject({ error: { message: expect.stringContaining("--sessions") } });
    });
  });

  describe("usage", () => {
    it("exits 2 on an unknown command, naming it", async () => {
      const { dir, db } = workspace();
      const run = await proofgate(["bogus", "--db", db], { cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain("unknown command 'bogus'");
      expect(fs.existsSync(db)).toBe(false);
    });

    it.each([[["help"]], [["--help"]], [[]]])("prints the program's help with %j and exits 0", async (args) => {
      const { dir } = workspace();
      const run = await proofgate(args, { cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^Usage: proofgate /);
      expect(run.stdout).toMatch(/^ +migrate\b/m);
      expect(run.stdout).toMatch(/^ +demo\b/m);
      expect(run.stdout).toContain("--db <path>");
      expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
    });

    it.each([[["--version"]], [["-V"]], [["--version", "--json"]]])("prints package.json's version with %j and exits 0, touching no database", async (args) => {
      const { dir } = workspace();
      const run = await proofgate(args, { cwd: dir });
      const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
      expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
      expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
    });

    it("reads an argument that starts with a dash as a value when it holds whitespace or is more than one short option, as BAZINGA's argparse does", async () => {
      const { dir, db } = workspace();
      expect((await proofgate(["--db", db, "create-session", "s1", "develop", "- a bulleted requirement"], { cwd: dir })).code).toBe(0);
      // A markdown list, a line that begins like -V, a single word like -V…, a negative number; an option's value likewise.
      const contents = ["- fixed the parser\n- added tests", "-Verbose run: 3 tests failed", "-Vfoo", "-10", "--fix it later"];
      for (const content of contents) {
        const run = await proofgate(["log-interaction", "s1", "developer", content, "1", "developer_1", "--db", db], { cwd: dir });
        expect(run, content).toMatchObject({ code: 0, stdout: expect.stringMatching(/^✓ Logged developer interaction/) });
      }
      expect((await proofgate(["--db", db, "log-interaction", "--group-id", "- group a", "s1", "developer", "grouped"], { cwd: dir })).code).toBe(0);
      const logged = query<string>(
        db,
        "SELECT json_group_array(json_object('content', content, 'groupId', group_id)) FROM (SELECT * FROM orchestration_logs ORDER BY id)",
      );
      expect(JSON.parse(logged)).toEqual([...contents.map((content) => ({ content, groupId: null })), { content: "grouped", groupId: "- group a" }]);
      expect(query(db, "SELECT requirements FROM sessions WHERE id = 's1'")).toBe("- a bulleted requirement");
      // Options are still options: -V alone, --name=value holding a space, and an unknown --flag is refused naming it.
      expect((await proofgate(["-V"], { cwd: dir })).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
      expect((await proofgate([`--db=${db}`, "create-session", "s2", "develop", "Req", '--metadata={"team": "a b"}'], { cwd: dir })).code).toBe(0);
      expect(query(db, "SELECT metadata FROM sessions WHERE id = 's2'")).toBe('{"team":"a b"}');
      const unknown = await proofgate(["--db", db, "log-interaction", "s1", "developer", "--bogus"], { cwd: dir });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^error: unknown option '--bogus'/);
    });

    it.each([[["demo", "--help"]], [["help", "demo"]], [["migrate", "--help"]], [["help", "migrate"]]])(
      "prints command help with an Example for %j",
      async (args) => {
        const { dir } = workspace();
        const run = await proofgate(args, { cwd: dir });
        expect(run.code).toBe(0);
        expect(run.stdout).toMatch(new RegExp(`^Usage: proofgate ${args.find((a) => a !== "help" && a !== "--help")}`));
        expect(run.stdout).toMatch(/^Examples?:\n {2}proofgate /m);
      },
    );
  });

  describe("an unusable database path", () => {
    it("exits 4 for a read of a database file that does not exist, creating nothing; the first write creates it", async () => {
      const { dir } = workspace();
      const db = path.join(dir, "typo", "proofgate.db");
      const read = await proofgate(["get-session", "s1", "--db", db], { cwd: dir });
      expect(read.code).toBe(4);
      expect(read.stderr).toContain(`no database at ${db}`);
      expect(fs.existsSync(path.dirname(db))).toBe(false);
      const write = await proofgate(["create-session", "s1", "simple", "Fix the login", "--db", db], { cwd: dir });
      expect(write.code).toBe(0);
      expect(fs.existsSync(db)).toBe(true);
    });

    it("exits 4 with a message when the path is a directory", async () => {
      const { dir } = workspace();
      const run = await proofgate(["migrate", "--db", dir], { cwd: dir });
      expect(run.code).toBe(4);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^proofgate: database unavailable: /);
      const json = await proofgate(["demo", "--db", dir, "--json"], { cwd: dir });
      expect(json.code).toBe(4);
      expect(JSON.parse(json.stderr)).toMatchObject({ error: { message: expect.stringContaining("database unavailable") } });
    });

    it("exits 4 with a message when the file is not a database, leaving it as it was", async () => {
      const { dir, db } = workspace();
      const garbage = "this is not an SQLite database, just text long enough to fill a header page\n".repeat(20);
      fs.writeFileSync(db, garbage);
      const run = await proofgate(["demo", "--db", db, "--sessions", "1"], { cwd: dir });
      expect(run.code).toBe(4);
      expect(run.stderr).toMatch(/^proofgate: database unavailable: /);
      expect(fs.readFileSync(db, "utf8")).toBe(garbage);
    });

    it("exits 4 with a message naming the path when a parent is a regular file", async () => {
      const { dir } = workspace();
      const file = path.join(dir, "plain-file");
      fs.writeFileSync(file, "not a directory");
      const run = await proofgate(["demo", "--db", path.join(file, "y.db"), "--sessions", "1"], { cwd: dir });
      expect(run.code).toBe(4);
      expect(run.stderr).toContain(file);
    });

    it("exits 4 with a message for a path under /proc, which cannot hold a database", { timeout: 30_000 }, async () => {
      const { dir } = workspace();
      const run = await proofgate(["migrate", "--db", "/proc/x/y.db"], { cwd: dir, killAfterMs: 8_000 });
      expect(run.code).toBe(4);
      expect(run.stderr).toMatch(/^proofgate: /);
    });
  });
});
