/**
 * Shared set-up for the importer tests: the real tools' fixture databases copied to a private
 * temporary folder (never opened where they lie), a fresh migrated ledger on either engine, and
 * read-outs of what landed where. The source databases are SQLite files on both engines (read
 * with better-sqlite3); the ledger is read with db/query.ts's raw helpers, so one assertion
 * reads a SQLite and a PostgreSQL ledger alike.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type Db, openDatabase } from "@/db/client";
import { type Engine, sharedLedgerFactory } from "./engines";
import { rowsLikeSqlite } from "./rows";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the fixture databases are: $PROOFGATE_FIXTURES, the copies kept in the repository, or the shared folder beside the checkout. */
export function fixturesFolder(): string {
  const candidates = [
    process.env.PROOFGATE_FIXTURES,
    path.join(ROOT, "server", "services", "import", "fixtures"),
    path.join(ROOT, "..", "shared", "fixtures"),
    path.join(ROOT, "..", "..", "shared", "fixtures"),
  ];
  const found = candidates.find((c): c is string => typeof c === "string" && fs.existsSync(path.join(c, "bazinga-v19-sample.db")));
  if (!found) throw new Error(`fixture databases not found (looked in ${candidates.filter(Boolean).join(", ")}): set PROOFGATE_FIXTURES`);
  return found;
}

const temps: string[] = [];

export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-import-"));
  temps.push(dir);
  return dir;
}

export function removeTemps(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A private copy of a fixture database (`-wal`/`-shm` companions are not part of a fixture). */
export function copyFixture(name: string, dir = tempDir()): string {
  const target = path.join(dir, name);
  fs.copyFileSync(path.join(fixturesFolder(), name), target);
  return target;
}

/**
 * Fresh ledgers to import into, on `engine`: a migrated SQLite file (as `proofgate import` writes
 * one), or a PostgreSQL database cloned from the run's migrated template. Closed after the file's
 * tests. Call at a file's top level.
 */
export function importLedgers(): (engine: Engine) => Promise<Db> {
  const shared = sharedLedgerFactory();
  return async (engine) => (await shared(engine)).db;
}

/** A fresh, migrated SQLite ledger in a file. SQLite only: for the cases about SQLite's one connection (writer.engines.test.ts). */
export function freshLedger(dir = tempDir()): { db: Db; file: string } {
  const file = path.join(dir, "proofgate.db");
  return { db: openDatabase(file), file };
}

export function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

/** Run SQL on a source file through its own (writable) connection, as the tool that owns it would. */
export function withSource<T>(file: string, work: (db: Database.Database) => T): T {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    return work(db);
  } finally {
    db.close();
  }
}

/** One number from a query on a source file. */
export function sourceCount(file: string, sql: string, ...params: unknown[]): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return Number(
      db
        .prepare(sql)
        .pluck()
        .get(...params),
    );
  } finally {
    db.close();
  }
}

/** The rows of a query on the ledger, either engine: `?` placeholders as better-sqlite3 takes them, a boolean read as 1/0. */
export function ledgerRows<T = Record<string, unknown>>(db: Db, sql: string, ...params: unknown[]): Promise<T[]> {
  return rowsLikeSqlite<T>(db, sql, ...params);
}

/** The first column of each row of a query on the ledger (better-sqlite3's `pluck().all()`), either engine. */
export async function ledgerValues<T = unknown>(db: Db, sql: string, ...params: unknown[]): Promise<T[]> {
  return (await ledgerRows(db, sql, ...params)).map((row) => Object.values(row)[0] as T);
}

/** One number from a query on the ledger, either engine (a count, a sum: numbers on both drivers). */
export async function ledgerNumber(db: Db, sql: string, ...params: unknown[]): Promise<number> {
  const [first] = await ledgerValues(db, sql, ...params);
  return Number(first);
}

/** One number from a query on a SQLite ledger. SQLite only (writer.engines.test.ts); `ledgerNumber` reads either engine. */
export function ledgerCount(db: Db, sql: string, ...params: unknown[]): number {
  return Number(
    db.$client
      .prepare(sql)
      .pluck()
      .get(...params),
  );
}

const LEDGER_TABLES = [
  "sessions",
  "tasks",
  "task_transitions",
  "success_criteria",
  "criterion_updates",
  "completion_checks",
  "goals",
  "validation_steps",
  "branches",
  "worktrees",
  "attempts",
  "tools",
  "attempt_tools",
  "attempt_results",
  "tool_calls",
  "validation_runs",
  "merges",
  "orchestration_logs",
  "state_snapshots",
  "token_usage",
  "skill_outputs",
  "decisions",
  "development_plans",
  "context_packages",
  "context_package_consumers",
  "workflow_transitions",
  "agent_markers",
  "workflow_special_rules",
  "configuration",
  "model_config",
  "events",
  "import_records",
];

/**
 * Every ledger table's full content, hashed: equal fingerprints mean not one row was added or
 * changed. The rows are hashed as a sorted set (PostgreSQL has no rowid to order by, and a
 * table's primary key is not always one column); compare fingerprints of one engine only.
 */
export async function ledgerFingerprint(db: Db): Promise<Record<string, { rows: number; hash: string }>> {
  const fingerprint: Record<string, { rows: number; hash: string }> = {};
  for (const table of LEDGER_TABLES) {
    const rows = (await ledgerRows(db, `SELECT * FROM "${table}"`)).map((row) => JSON.stringify(row)).sort();
    fingerprint[table] = { rows: rows.length, hash: createHash("sha256").update(rows.join("\n")).digest("hex") };
  }
  return fingerprint;
}
