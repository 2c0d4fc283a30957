// flake-risks time: brackets a timestamp the code takes itself; fails only if the wall clock steps backwards mid-test
// flake-risks wait: holds a write lock for a fixed time so the other writer meets it; were the machine too slow for them to meet, the order asserted is the same (the test could miss the wait, not fail)
import { queryAll } from "./query";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { eq } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  DATABASE_URL_ENV,
  DEFAULT_DB_PATH,
  type Db,
  LedgerChoiceError,
  closeDb,
  connectionOf,
  createMemoryDb,
  getDb,
  openDatabase,
  openSharedLedger,
  resolveDbPath,
  resolveLedger,
  writeTransaction,
  writeTransactionSync,
} from "./client";
import { findMigrationsFolder } from "./migrate";
import { sessions } from "./schema";

let dir: string;
const opened: Db[] = [];
const open = (file: string, options?: Parameters<typeof openDatabase>[1]) => {
  const db = openDatabase(file, options);
  opened.push(db);
  return db;
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-client-"));
});
afterEach(async () => {
  for (const db of opened.splice(0)) if (db.$client.open) db.$client.close();
  await closeDb();
  vi.unstubAllEnvs();
  fs.rmSync(dir, { recursive: true, force: true });
});

const MIGRATIONS = readMigrationFiles({ migrationsFolder: findMigrationsFolder() }).length;
const migrationCount = (db: Db) => Number(db.$client.prepare(`SELECT count(*) FROM "__drizzle_migrations"`).pluck().get());

describe("openDatabase on a file", () => {
  it("creates missing folders and opens with WAL, foreign keys, a busy timeout and NORMAL sync", () => {
    const file = path.join(dir, "nested", "deeper", "proofgate.db");
    const sqlite = open(file).$client;
    expect(fs.existsSync(file)).toBe(true);
    expect(sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(sqlite.pragma("busy_timeout", { simple: true })).toBeGreaterThan(0);
    expect(sqlite.pragma("synchronous", { simple: true })).toBe(1);
  });

  it("enforces foreign keys, not just reports them on", () => {
    const sqlite = open(path.join(dir, "p.db")).$client;
    expect(() => sqlite.prepare("INSERT INTO tasks (session_id, key, title) VALUES ('no-such-session', 'T1', 't')").run()).toThrow(
      /FOREIGN KEY constraint failed/,
    );
  });

  it("stamps raw inserts with UTC epoch milliseconds, which Drizzle reads back as the same instant", async () => {
    const db = open(path.join(dir, "p.db"));
    const before = Date.now();
    db.$client.prepare("INSERT INTO sessions (id) VALUES ('s1')").run();
    const after = Date.now();
    const raw = db.$client.prepare("SELECT created_at, started_at, updated_at, typeof(created_at) AS type FROM sessions").get() as {
      created_at: number;
      started_at: number;
      updated_at: number;
      type: string;
    };
    expect(raw.type).toBe("integer");
    for (const at of [raw.created_at, raw.started_at, raw.updated_at]) {
      // The insert's own instant (epoch milliseconds, not seconds, not local time), however long it took.
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
    }
    const [session] = await queryAll(db.select().from(sessions).where(eq(sessions.id, "s1")));
    expect(session?.createdAt).toBeInstanceOf(Date);
    expect(session?.createdAt.getTime()).toBe(raw.created_at);
  });

  it("opens read-only without migrating or writing, and refuses a missing file", () => {
    const file = path.join(dir, "p.db");
    open(file).$client.prepare("INSERT INTO sessions (id) VALUES ('s1')").run();
    const reader = open(file, { readonly: true }).$client;
    expect(reader.prepare("SELECT id FROM sessions").pluck().all()).toEqual(["s1"]);
    expect(() => reader.prepare("INSERT INTO sessions (id) VALUES ('s2')").run()).toThrow(/readonly/);
    expect(() => open(path.join(dir, "missing.db"), { readonly: true })).toThrow();
    expect(fs.existsSync(path.join(dir, "missing.db"))).toBe(false);
  });

  it("leaves an unmigrated file alone when asked to", () => {
    const sqlite = open(path.join(dir, "p.db"), { migrate: false }).$client;
    expect(sqlite.prepare("SELECT count(*) FROM sqlite_master").pluck().get()).toBe(0);
  });

  it("applies migrations once: reopening the file finds nothing to do", () => {
    const file = path.join(dir, "p.db");
    const first = open(file);
    const rows = first.$client.prepare(`SELECT hash, created_at FROM "__drizzle_migrations"`).all();
    first.$client.close();
    const second = open(file);
    expect(second.$client.prepare(`SELECT hash, created_at FROM "__drizzle_migrations"`).all()).toEqual(rows);
    expect(migrationCount(second)).toBe(MIGRATIONS);
  });
});

describe("writeTransaction under another process's write", () => {
  const require = createRequire(import.meta.url);

  /** Another process takes the file's write lock, writes a row, and commits `ms` later; resolves once it holds the lock. */
  async function holdWriteLock(file: string, ms: number): Promise<void> {
    const script = `const db = new (require(${JSON.stringify(require.resolve("better-sqlite3"))}))(process.argv[1]);
      db.exec("BEGIN IMMEDIATE; INSERT INTO held VALUES (1)"); console.log("locked");
      setTimeout(() => db.exec("COMMIT"), ${ms});`;
    const child = spawn(process.execPath, ["-e", script, file], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  }

  it("waits its turn when SQLite's errors are another copy of better-sqlite3's SqliteError (proofgate serve)", async () => {
    const file = path.join(dir, "busy.db");
    const db = open(file);
    db.$client.exec("CREATE TABLE held (n INTEGER)");
    // The native addon throws the SqliteError class of the copy of better-sqlite3 that opened a
    // database first: in `proofgate serve`, dist/cli.cjs's inlined copy, not this one.
    const addon = require("better-sqlite3/build/Release/better_sqlite3.node") as { setErrorConstructor(ctor: unknown): void };
    addon.setErrorConstructor(
      class SqliteError extends Error {
        constructor(
          message: string,
          readonly code: string,
        ) {
          super(message);
        }
      },
    );
    try {
      await holdWriteLock(file, 300);
      // Before: SQLITE_BUSY ("database is locked") after the first 20 ms try.
      const seen = await writeTransaction(db, () => db.$client.prepare("SELECT count(*) FROM held").pluck().get());
      expect(seen).toBe(1);
    } finally {
      addon.setErrorConstructor(Database.SqliteError);
    }
  });
});

describe("writeTransaction under another connection of this process", () => {
  it("waits for a transaction that awaits a timer without blocking the thread it needs to commit", async () => {
    // `proofgate serve` holds two connections to one file in one thread (the API's bundle and
    // Next's), and a write transaction awaits between its statements: a waiting writer that slept
    // synchronously kept the holder's timer from ever firing — frozen for 10 s, then "database is locked".
    const file = path.join(dir, "two.db");
    const [first, second] = [open(file), open(file)];
    first.$client.exec("CREATE TABLE steps (n INTEGER)");
    const order: string[] = [];
    let began!: () => void;
    const holding = new Promise<void>((resolve) => (began = resolve));
    const holder = writeTransaction(first, async () => {
      first.$client.prepare("INSERT INTO steps VALUES (1)").run();
      began();
      await new Promise((resolve) => setTimeout(resolve, 100));
      first.$client.prepare("INSERT INTO steps VALUES (2)").run();
      order.push("first committed");
    });
    await holding;
    const waiter = writeTransaction(second, () => {
      order.push("second began");
      return second.$client.prepare("SELECT count(*) FROM steps").pluck().get();
    });
    await holder;
    expect(await waiter).toBe(2);
    expect(order).toEqual(["first committed", "second began"]);
  });

  it("a synchronous write (a task move) meeting that transaction waits for it the same way instead of failing", async () => {
    const file = path.join(dir, "two-sync.db");
    const [first, second] = [open(file), open(file)];
    first.$client.exec("CREATE TABLE steps (n INTEGER)");
    let began!: () => void;
    const holding = new Promise<void>((resolve) => (began = resolve));
    const holder = writeTransaction(first, async () => {
      first.$client.prepare("INSERT INTO steps VALUES (1)").run();
      began();
      await new Promise((resolve) => setTimeout(resolve, 100));
      first.$client.prepare("INSERT INTO steps VALUES (2)").run();
    });
    await holding;
    const waiter = writeTransactionSync(second, () => second.$client.prepare("SELECT count(*) FROM steps").pluck().get());
    expect(waiter).toBeInstanceOf(Promise);
    await holder;
    expect(await waiter).toBe(2);
    // Free again: the synchronous path answers at once, with no promise.
    expect(writeTransactionSync(second, () => second.$client.prepare("SELECT count(*) FROM steps").pluck().get())).toBe(2);
  });
});

describe("connectionOf", () => {
  it("finds the same connection under a database, a read transaction and a write transaction", async () => {
    const db = createMemoryDb();
    expect(connectionOf(db)).toBe(db.$client);
    expect(db.transaction((tx) => connectionOf(tx))).toBe(db.$client);
    expect(await writeTransaction(db, (tx) => connectionOf(tx))).toBe(db.$client);
    const other = createMemoryDb();
    expect(other.transaction((tx) => connectionOf(tx))).not.toBe(db.$client);
  });

  it("names what is missing when a handle has no connection", () => {
    expect(() => connectionOf({ session: {} } as never)).toThrow(/session\.client/);
  });
});

describe("createMemoryDb", () => {
  it("gives each caller its own migrated database", () => {
    const a = createMemoryDb();
    const b = createMemoryDb();
    opened.push(a, b);
    for (const db of [a, b]) {
      expect(migrationCount(db)).toBe(MIGRATIONS);
      expect(db.$client.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get()).toBeGreaterThan(50);
      expect(db.$client.pragma("foreign_keys", { simple: true })).toBe(1);
    }
    a.$client.prepare("INSERT INTO sessions (id) VALUES ('only-in-a')").run();
    expect(a.$client.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(1);
    expect(b.$client.prepare("SELECT count(*) FROM sessions").pluck().get()).toBe(0);
  });
});

describe("the process-wide database", () => {
  it("resolves the path from the argument, then PROOFGATE_DB, then the default", () => {
    vi.stubEnv("PROOFGATE_DB", "");
    delete process.env.PROOFGATE_DB;
    expect(resolveDbPath()).toBe(DEFAULT_DB_PATH);
    vi.stubEnv("PROOFGATE_DB", "/tmp/from-env.db");
    expect(resolveDbPath()).toBe("/tmp/from-env.db");
    expect(resolveDbPath("/tmp/explicit.db")).toBe("/tmp/explicit.db");
  });

  it("opens PROOFGATE_DB once and reopens after closeDb", async () => {
    const file = path.join(dir, "shared.db");
    vi.stubEnv("PROOFGATE_DB", file);
    const db = getDb();
    expect(getDb()).toBe(db);
    expect(db.$client.name).toBe(file);
    await closeDb();
    expect(db.$client.open).toBe(false);
    const again = getDb();
    expect(again).not.toBe(db);
    expect(migrationCount(again)).toBe(MIGRATIONS);
  });

  it("chooses the ledger: --database-url, else --db, else PROOFGATE_DATABASE_URL, else PROOFGATE_DB, else the default file", () => {
    vi.stubEnv(DATABASE_URL_ENV, "");
    vi.stubEnv("PROOFGATE_DB", "");
    delete process.env[DATABASE_URL_ENV];
    delete process.env.PROOFGATE_DB;
    expect(resolveLedger()).toBe(DEFAULT_DB_PATH);
    vi.stubEnv("PROOFGATE_DB", "/tmp/env.db");
    expect(resolveLedger()).toBe("/tmp/env.db");
    vi.stubEnv(DATABASE_URL_ENV, "postgres://env@db/ledger");
    expect(resolveLedger()).toBe("postgres://env@db/ledger");
    // A flag beats the environment, whichever engine either names.
    expect(resolveLedger({ db: "/tmp/flag.db" })).toBe("/tmp/flag.db");
    expect(resolveLedger({ databaseUrl: "postgresql://flag@db/ledger" })).toBe("postgresql://flag@db/ledger");
  });

  it("refuses a ledger choice it cannot use, naming the flag or the variable", () => {
    expect(() => resolveLedger({ db: "/tmp/a.db", databaseUrl: "postgres://x@y/z" })).toThrow(LedgerChoiceError);
    expect(() => resolveLedger({ db: "/tmp/a.db", databaseUrl: "postgres://x@y/z" })).toThrow(/--db and --database-url: give one or the other/);
    expect(() => resolveLedger({ databaseUrl: "./data/proofgate.db" })).toThrow(/^--database-url: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    vi.stubEnv(DATABASE_URL_ENV, "mysql://x@y/z");
    expect(() => resolveLedger()).toThrow(/^PROOFGATE_DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(resolveLedger({ db: "/tmp/flag.db" })).toBe("/tmp/flag.db");
  });

  it("opens the shared SQLite ledger once whichever way it is asked for", async () => {
    vi.stubEnv("PROOFGATE_DB", path.join(dir, "shared-async.db"));
    const db = await openSharedLedger();
    expect(await openSharedLedger()).toBe(db);
    expect(getDb()).toBe(db);
  });

  it("does not open a PostgreSQL ledger inside getDb(): it must be awaited first", () => {
    vi.stubEnv(DATABASE_URL_ENV, "postgres://nobody@127.0.0.1:1/none");
    expect(() => getDb()).toThrow(/PROOFGATE_DATABASE_URL: a PostgreSQL ledger is opened by awaiting openSharedLedger\(\) before getDb\(\)/);
  });
});
