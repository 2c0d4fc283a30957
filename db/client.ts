import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { withLock, withLockSync } from "./connection-lock";
import { applyMigrations } from "./migrate";
import { isPostgresUrl } from "./pg/client";
import { closePgLedger, openPgLedger, pgRead, pgRootOf, pgWrite } from "./pg/ledger";
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
 * Within the process, the connection runs one transaction at a time (db/connection-lock.ts): an
 * action awaits, and another caller's statements must not land inside its transaction. A write
 * inside a write (the same call chain), or inside a transaction opened by hand on the connection
 * (an import's batch), runs in a savepoint of it instead: a throw rolls back that part alone.
 *
 * The statements are prepared once per connection (writerOf): building a Drizzle transaction on
 * every call cost ~100 µs, a fifth of a task move. The busy-timeout pragmas cannot be prepared
 * once: SQLite applies `PRAGMA busy_timeout = N` when the statement is compiled, not when it runs.
 */
export function writeTransaction<T>(db: Db, action: (tx: Tx) => T | Promise<T>): Promise<T> {
  const pg = pgRootOf(db);
  if (pg) return pgWrite(db, pg, action);
  return withLock(db.$client, () => writeOn(db, action));
}

/**
 * `writeTransaction` for an action that never awaits (SQLite only: every statement a better-sqlite3
 * call, as in a task move). When no other call chain holds the connection, `BEGIN IMMEDIATE`, the
 * action and `COMMIT` run in one synchronous stretch and its value is returned at once: nothing
 * else can run in between, so the connection lock is held for that stretch without an
 * AsyncLocalStorage or a turn of the event loop (db/connection-lock.ts, `withLockSync`). When
 * another chain holds it, the same runs once it is given back (a promise). Inside a write of this
 * chain it is a savepoint, as `writeTransaction` is. An action that returns a promise is refused
 * and rolled back: what it awaits would run after the transaction.
 */
export function writeTransactionSync<T>(db: Db, action: (tx: Tx) => T): T | Promise<T> {
  if (pgRootOf(db)) throw new Error("writeTransactionSync: SQLite only (on PostgreSQL every statement is awaited: use writeTransaction)");
  // A synchronous action makes writeOn synchronous: its value, never a promise.
  return withLockSync(db.$client, () => writeOn(db, synchronousOnly(action)) as T);
}

function writeOn<T>(db: Db, action: (tx: Tx) => T | Promise<T>): T | Promise<T> {
  return db.$client.inTransaction ? inSavepoint(db, action) : inTransaction(db, action, beginImmediate);
}

function synchronousOnly<T>(action: (tx: Tx) => T): (tx: Tx) => T {
  return (tx) => {
    const value = action(tx);
    if (isThenable(value)) throw new Error("writeTransactionSync: the action returned a promise; an action that awaits needs writeTransaction");
    return value;
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/**
 * `done(run())`, or `failed(error)` when either throws: at once when `run` returns a value, once it
 * settles when it returns a promise. A transaction's begin, commit and rollback are the same code
 * whether its action is synchronous or not.
 */
function settle<T, R>(run: () => T | PromiseLike<T>, done: (value: T) => R, failed: (error: unknown) => R): R | Promise<R> {
  let value: T | PromiseLike<T>;
  try {
    value = run();
    if (!isThenable(value)) return done(value);
  } catch (error) {
    return failed(error);
  }
  return Promise.resolve(value).then(done).catch(failed);
}

/**
 * Run `action` as one read transaction (`BEGIN`, deferred): every statement in it reads the same
 * snapshot, and no other caller's transaction on this connection is open meanwhile. Inside an open
 * transaction, `action` simply runs in it.
 */
export function readTransaction<T>(db: Db, action: (tx: Tx) => T | Promise<T>): Promise<T> {
  const pg = pgRootOf(db);
  if (pg) return pgRead(db, pg, action);
  const sqlite = db.$client;
  return withLock(sqlite, () => (sqlite.inTransaction ? action(writerOf(db).tx) : inTransaction(db, action, (writer) => writer.begin.run())));
}

/**
 * Run `work` holding this connection (db/connection-lock.ts) without opening a transaction: for
 * work that opens and commits its own transactions by hand (an import's batches), so that no other
 * caller's statement runs inside them and the services it calls nest in them as savepoints.
 */
export function withConnection<T>(db: Db, work: () => T | Promise<T>): Promise<T> {
  if (pgRootOf(db)) return Promise.resolve().then(work);
  return withLock(db.$client, work);
}

function inTransaction<T>(db: Db, action: (tx: Tx) => T | Promise<T>, begin: (writer: Writer, sqlite: Database.Database) => void): T | Promise<T> {
  const sqlite = db.$client;
  const writer = writerOf(db);
  begin(writer, sqlite);
  return settle(
    () => action(writer.tx),
    (value) => {
      writer.commit.run();
      return value;
    },
    (error) => {
      if (sqlite.inTransaction) writer.rollback.run();
      throw error;
    },
  );
}

function inSavepoint<T>(db: Db, action: (tx: Tx) => T | Promise<T>): T | Promise<T> {
  const writer = writerOf(db);
  const depth = writer.depth;
  const savepoint = writer.savepointAt(depth);
  savepoint.begin.run();
  writer.depth += 1;
  return settle(
    () => action(writer.tx),
    (value) => {
      // Savepoints nest: two writes started side by side inside one transaction (`Promise.all`) would
      // release or roll back each other's. Writes inside a write run one after another.
      if (writer.depth !== depth + 1) throw new Error("two writes ran side by side inside one transaction: await each before starting the next");
      savepoint.release.run();
      writer.depth -= 1;
      return value;
    },
    (error) => {
      try {
        if (db.$client.inTransaction) {
          savepoint.rollback.run();
          savepoint.release.run();
        }
      } finally {
        writer.depth -= 1;
      }
      throw error;
    },
  );
}

function beginImmediate(writer: Writer, sqlite: Database.Database): void {
  const deadline = Date.now() + WRITE_WAIT_MS;
  sqlite.pragma(`busy_timeout = ${WRITE_TRY_MS}`);
  try {
    for (;;) {
      try {
        writer.beginImmediate.run();
        return;
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

interface Savepoint {
  begin: Database.Statement;
  release: Database.Statement;
  rollback: Database.Statement;
}

interface Writer {
  begin: Database.Statement;
  beginImmediate: Database.Statement;
  commit: Database.Statement;
  rollback: Database.Statement;
  /** How many savepoints are open inside the current transaction. */
  depth: number;
  savepointAt: (depth: number) => Savepoint;
  /**
   * This connection's Drizzle transaction handle. It holds no state of its own (the connection,
   * the dialect, the schema), so one serves every transaction.
   */
  tx: Tx;
}

const writers = new WeakMap<Database.Database, Writer>();

function writerOf(db: Db): Writer {
  let writer = writers.get(db.$client);
  if (!writer) {
    const sqlite = db.$client;
    const savepoints: Savepoint[] = [];
    writer = {
      begin: sqlite.prepare("BEGIN"),
      beginImmediate: sqlite.prepare("BEGIN IMMEDIATE"),
      commit: sqlite.prepare("COMMIT"),
      rollback: sqlite.prepare("ROLLBACK"),
      depth: 0,
      savepointAt: (depth) =>
        (savepoints[depth] ??= {
          begin: sqlite.prepare(`SAVEPOINT proofgate_${depth}`),
          release: sqlite.prepare(`RELEASE proofgate_${depth}`),
          rollback: sqlite.prepare(`ROLLBACK TO proofgate_${depth}`),
        }),
      // Drizzle hands out its transaction handle only inside a transaction: an empty deferred one takes no lock.
      tx: db.transaction((tx) => tx),
    };
    writers.set(sqlite, writer);
  }
  return writer;
}

/** Which engine a database handle runs on. */
export function engineOf(db: DbOrTx): "sqlite" | "postgres" {
  return pgRootOf(db) ? "postgres" : "sqlite";
}

export interface LedgerOpenOptions extends OpenOptions {
  /** PostgreSQL only: the pool's size (default 10). */
  poolSize?: number;
}

/**
 * Open a ledger on either engine: a `postgres://` (or `postgresql://`) URL opens PostgreSQL
 * (db/pg/ledger.ts), anything else is a SQLite file (`openDatabase`).
 */
export async function openLedger(target: string, options: LedgerOpenOptions = {}): Promise<Db> {
  if (isPostgresUrl(target)) {
    return openPgLedger(target, { migrate: options.migrate, max: options.poolSize });
  }
  return openDatabase(target, options);
}

/** Close a ledger opened by `openLedger`. */
export async function closeLedger(db: Db): Promise<void> {
  if (pgRootOf(db)) await closePgLedger(db);
  else db.$client.close();
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
