import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyMigrations, findMigrationsFolder } from "./migrate";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));
const JOURNAL = JSON.parse(fs.readFileSync(path.join(FOLDER, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };

let dir: string;
const handles: Database.Database[] = [];
const sqliteAt = (file = ":memory:") => {
  const sqlite = new Database(file);
  handles.push(sqlite);
  return sqlite;
};
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-migrate-"));
});
afterEach(() => {
  for (const sqlite of handles.splice(0)) sqlite.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const recorded = (sqlite: Database.Database) =>
  sqlite.prepare(`SELECT hash, created_at AS at FROM "__drizzle_migrations" ORDER BY created_at`).all() as { hash: string; at: number }[];

/** A migrations folder holding the first `count` committed migrations, plus optional extra SQL. */
function folderWith(count: number, extra?: { tag: string; when: number; sql: string }): string {
  const folder = path.join(dir, `migrations-${count}-${extra?.tag ?? "none"}`);
  fs.mkdirSync(path.join(folder, "meta"), { recursive: true });
  const journal = JSON.parse(fs.readFileSync(path.join(FOLDER, "meta", "_journal.json"), "utf8")) as { entries: { tag: string; idx: number; when: number }[] };
  const entries = journal.entries.slice(0, count);
  for (const entry of entries) fs.copyFileSync(path.join(FOLDER, `${entry.tag}.sql`), path.join(folder, `${entry.tag}.sql`));
  if (extra) {
    entries.push({ ...journal.entries[0]!, idx: entries.length, tag: extra.tag, when: extra.when });
    fs.writeFileSync(path.join(folder, `${extra.tag}.sql`), extra.sql);
  }
  fs.writeFileSync(path.join(folder, "meta", "_journal.json"), JSON.stringify({ ...journal, entries }));
  return folder;
}

describe("applyMigrations", () => {
  it("finds the committed folder and records one row per migration, with drizzle's hash and timestamp", () => {
    expect(path.resolve(findMigrationsFolder())).toBe(path.resolve(FOLDER));
    const sqlite = sqliteAt();
    expect(applyMigrations(sqlite)).toBe(JOURNAL.entries.length);
    const expected = readMigrationFiles({ migrationsFolder: FOLDER }).map((m) => ({ hash: m.hash, at: m.folderMillis }));
    expect(recorded(sqlite)).toEqual(expected);
    expect(applyMigrations(sqlite)).toBe(0);
    expect(recorded(sqlite)).toEqual(expected);
  });

  it("applies only what a database does not have yet", () => {
    const sqlite = sqliteAt();
    expect(applyMigrations(sqlite, folderWith(1))).toBe(1);
    expect(sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get()).toBe(0);
    expect(applyMigrations(sqlite, FOLDER)).toBe(JOURNAL.entries.length - 1);
    expect(recorded(sqlite)).toHaveLength(JOURNAL.entries.length);
    expect(sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get()).toBeGreaterThan(50);
  });

  it("decides from the journal alone when nothing is pending, and reads the SQL only when something is", () => {
    // The same journal without the SQL files: an up-to-date database never needs them.
    const journalOnly = path.join(dir, "journal-only");
    fs.mkdirSync(path.join(journalOnly, "meta"), { recursive: true });
    fs.copyFileSync(path.join(FOLDER, "meta", "_journal.json"), path.join(journalOnly, "meta", "_journal.json"));
    const current = sqliteAt();
    expect(applyMigrations(current, FOLDER)).toBe(JOURNAL.entries.length);
    expect(applyMigrations(current, journalOnly)).toBe(0);
    // An old database (first migration only) is behind the journal: it reads the files and applies the rest.
    const old = sqliteAt(path.join(dir, "old.db"));
    expect(applyMigrations(old, folderWith(1))).toBe(1);
    expect(() => applyMigrations(old, journalOnly)).toThrow(/ENOENT|No file/);
    expect(recorded(old)).toHaveLength(1);
    expect(applyMigrations(old, FOLDER)).toBe(JOURNAL.entries.length - 1);
    expect(recorded(old)).toEqual(readMigrationFiles({ migrationsFolder: FOLDER }).map((m) => ({ hash: m.hash, at: m.folderMillis })));
  });

  it("rolls back everything, bookkeeping included, when a statement fails", () => {
    const sqlite = sqliteAt();
    const when = readMigrationFiles({ migrationsFolder: FOLDER }).at(-1)!.folderMillis + 1000;
    const broken = folderWith(2, { tag: "0002_broken", when, sql: "CREATE TABLE later (a);\n--> statement-breakpoint\nINSERT INTO nowhere VALUES (1);" });
    expect(() => applyMigrations(sqlite, broken)).toThrow(/no such table: nowhere/);
    expect(sqlite.inTransaction).toBe(false);
    expect(sqlite.prepare("SELECT name FROM sqlite_master").all()).toEqual([]);
    expect(applyMigrations(sqlite, FOLDER)).toBe(JOURNAL.entries.length);
  });
});

const CHILD = `
import { applyMigrations } from ${JSON.stringify(path.join(ROOT, "db", "migrate.ts"))};
import { openDatabase } from ${JSON.stringify(path.join(ROOT, "db", "client.ts"))};
process.stdout.write("ready\\n");
process.stdin.once("data", () => {
  const db = openDatabase(process.argv[2], { migrate: false });
  const applied = applyMigrations(db.$client);
  const mode = db.$client.pragma("journal_mode", { simple: true });
  process.stdout.write(JSON.stringify({ applied, mode }) + "\\n");
  db.$client.close();
  process.exit(0);
});
`;

interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Start `count` processes, wait until all have loaded, then release them at once on the same file. */
async function openConcurrently(file: string, count: number): Promise<ChildResult[]> {
  const script = path.join(dir, "open-child.ts");
  fs.writeFileSync(script, CHILD);
  const tsx = path.join(ROOT, "node_modules", ".bin", "tsx");
  const children = Array.from({ length: count }, () => spawn(tsx, [script, file], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] }));
  const results = children.map(
    (child) =>
      new Promise<ChildResult>((resolve) => {
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      }),
  );
  await Promise.all(children.map((child) => new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))));
  for (const child of children) child.stdin.end("go\n");
  return Promise.all(results);
}

describe("several processes opening one fresh file at once", () => {
  it.each([1, 2])(
    "apply each migration exactly once, without errors (round %i)",
    async () => {
      const file = path.join(dir, "fresh.db");
      const results = await openConcurrently(file, 4);
      for (const result of results) {
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
      }
      const reports = results.map((r) => JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { applied: number; mode: string });
      expect(reports.map((r) => r.mode)).toEqual(["wal", "wal", "wal", "wal"]);
      // Exactly one process did the work; the others waited, then found nothing to do.
      expect(reports.map((r) => r.applied).sort()).toEqual([0, 0, 0, JOURNAL.entries.length]);
      const sqlite = sqliteAt(file);
      const rows = recorded(sqlite);
      expect(rows).toHaveLength(JOURNAL.entries.length);
      expect(new Set(rows.map((r) => r.hash)).size).toBe(rows.length);
    },
    60_000,
  );
});
