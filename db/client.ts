import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { applyMigrations } from "./migrate";
import { cacheStatements } from "./statement-cache";

/**
 * No relational schema: nothing uses Drizzle's relational queries (`db.query.*`), and building their
 * configuration from every table and relation cost each CLI call and hook a few ms at start-up
 * (and made every table module load). Queries name their tables; `db.query` is left untyped so a
 * use is a type error rather than a runtime surprise.
 */
export type Db = BetterSQLite3Database & { $client: Database.Database };
/** A transaction handle: services accept either, so they compose inside a caller's transaction. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

/**
 * The better-sqlite3 connection under a database or a transaction handle. Drizzle gives a
 * transaction handle no `$client`, but it runs on the same session, whose connection is the
 * same object; that field is not in Drizzle's types, so it is checked here, once, and a test
 * (db/client.test.ts) fails if a Drizzle upgrade moves it.
 */
export function connectionOf(db: DbOrTx): Database.Database {
  if ("$client" in db) return db.$client;
  const client = (db as unknown as { session?: { client?: unknown } }).session?.client;
  if (!(client instanceof Database)) throw new Error("connectionOf: this Drizzle transaction handle no longer exposes its connection (session.client)");
  return client;
}

export const DEFAULT_DB_PATH = "./data/proofgate.db";
const BUSY_TIMEOUT_MS = 10_000;

export interface OpenOptions {
  /** Apply pending migrations on open (default true). */
  migrate?: boolean;
  migrationsFolder?: string;
  readonly?: boolean;
}

/**
 * Open a Proofgate database: WAL (readers never block the writer), foreign keys on, a busy timeout
 * so concurrent writers from other processes wait instead of failing, migrations applied, and
 * Drizzle's statements compiled once per connection (`cacheStatements`).
 */
export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const memory = file === ":memory:";
  if (!memory && !options.readonly) ensureFolder(path.dirname(path.resolve(file)));
  const sqlite = openFile(file, options.readonly ?? false);
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (!memory && !options.readonly) enableWal(sqlite);
  // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commits).
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  if (options.migrate ?? !options.readonly) applyMigrations(sqlite, options.migrationsFolder);
  cacheStatements(sqlite);
  return drizzle({ client: sqlite });
}

/** better-sqlite3's "unable to open database file" does not say which file. */
function openFile(file: string, readonly: boolean): Database.Database {
  try {
    return new Database(file, { readonly, fileMustExist: readonly });
  } catch (error) {
    if (error instanceof Database.SqliteError) throw new Database.SqliteError(`${error.message}: ${file}`, error.code);
    throw error;
  }
}

/**
 * Create a folder and its parents one level at a time. Node's `mkdirSync(…, { recursive: true })`
 * retries forever under a pseudo file system such as /proc, hanging the process; this fails with
 * the operating system's error instead.
 */
function ensureFolder(folder: string): void {
  const stat = fs.statSync(folder, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return;
  if (stat) throw Object.assign(new Error(`ENOTDIR: not a directory, ${folder}`), { code: "ENOTDIR" });
  const parent = path.dirname(folder);
  if (parent !== folder) ensureFolder(parent);
  fs.mkdirSync(folder);
}

/**
 * Switching a new file to WAL can fail with SQLITE_BUSY at once, without waiting for the busy
 * timeout, while another process opening the same fresh file is switching it too (seen in
 * migrate.test.ts). Retry for as long as the busy timeout would have waited.
 */
function enableWal(sqlite: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      sqlite.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      const busy = error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY");
      if (!busy || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/** How long a write waits for the write lock, in all, before SQLITE_BUSY reaches its caller. */
export const WRITE_WAIT_MS = BUSY_TIMEOUT_MS;
/** How long one try waits inside SQLite's own busy handler. */
const WRITE_TRY_MS = 20;

/**
 * Run `action` as one `BEGIN IMMEDIATE` transaction, waiting for the write lock fairly. SQLite's
 * own busy handler sleeps longer and longer between tries (up to 100 ms each), so a writer that
 * has waited a while polls rarely and keeps losing the lock to writers that just arrived: with
 * eight processes writing in tight loops some waited past the 10 s timeout and got SQLITE_BUSY
 * (server/reliability/lock-fairness.test.ts). Here each try waits at most 20 ms inside SQLite,
 * then sleeps 1–4 ms (random) and tries again, for up to WRITE_WAIT_MS in all. A try that did not
 * get the lock ran nothing of `action`.
 *
 * This runs for every write, so the transaction's machinery is made once per connection
 * (writerOf): building a Drizzle transaction and a better-sqlite3 transaction function on every
 * call cost ~100 µs, a fifth of a task move (and a sixteenth of an imported row's writes, which run
 * inside the import's open batch as savepoints). The busy-timeout pragmas cannot be prepared once:
 * SQLite applies `PRAGMA busy_timeout = N` when the statement is compiled, not when it runs.
 */
export function writeTransaction<T>(db: Db, action: (tx: Tx) => T): T {
  const sqlite = db.$client;
  const writer = writerOf(db);
  // Inside an open transaction (an import's batch): a savepoint, with the same handle.
  if (sqlite.inTransaction) return writer.nested(action, writer.tx) as T;
  const deadline = Date.now() + WRITE_WAIT_MS;
  sqlite.pragma(`busy_timeout = ${WRITE_TRY_MS}`);
  try {
    for (;;) {
      try {
        return writer.immediate(action, writer.tx) as T;
      } catch (error) {
        const busy = error instanceof Database.SqliteError && error.code.startsWith("SQLITE_BUSY") && !sqlite.inTransaction;
        if (!busy || Date.now() >= deadline) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1 + Math.floor(Math.random() * 4));
      }
    }
  } finally {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

interface Writer {
  /** `BEGIN IMMEDIATE; action(tx); COMMIT` (ROLLBACK if it throws), as Drizzle's `db.transaction(…, { behavior: "immediate" })` runs it. */
  immediate: (action: (tx: Tx) => unknown, tx: Tx) => unknown;
  /** `SAVEPOINT; action(tx); RELEASE` (ROLLBACK TO if it throws), as `db.transaction(…)` runs it inside an open transaction. */
  nested: (action: (tx: Tx) => unknown, tx: Tx) => unknown;
  /**
   * This connection's Drizzle transaction handle. It holds no state of its own (the connection,
   * the dialect, the schema; savepoints are named by depth), so one serves every transaction.
   */
  tx: Tx;
}

const writers = new WeakMap<Database.Database, Writer>();

function writerOf(db: Db): Writer {
  let writer = writers.get(db.$client);
  if (!writer) {
    const sqlite = db.$client;
    const run = sqlite.transaction((action: (tx: Tx) => unknown, tx: Tx) => action(tx));
    writer = {
      immediate: run.immediate,
      nested: run,
      // Drizzle hands out its transaction handle only inside a transaction: an empty deferred one takes no lock.
      tx: db.transaction((tx) => tx),
    };
    writers.set(sqlite, writer);
  }
  return writer;
}

/** A fresh, migrated, private in-memory database (tests). */
export function createMemoryDb(): Db {
  return openDatabase(":memory:");
}

export function resolveDbPath(explicit?: string): string {
  return explicit ?? process.env.PROOFGATE_DB ?? DEFAULT_DB_PATH;
}

let shared: Db | undefined;

/** The process-wide database, opened on first use so `next build` never touches it. */
export function getDb(): Db {
  shared ??= openDatabase(resolveDbPath());
  return shared;
}

/** Close the process-wide handle (tests, graceful shutdown). */
export function closeDb(): void {
  shared?.$client.close();
  shared = undefined;
}
