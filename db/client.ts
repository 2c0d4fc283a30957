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
  configure(sqlite);
  if (!memory && !options.readonly) enableWal(sqlite);
  if (options.migrate ?? !options.readonly) applyMigrations(sqlite, options.migrationsFolder);
  return wrap(sqlite);
}

/** The connection settings every Proofgate database has, whatever opened it. */
function configure(sqlite: Database.Database): void {
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // NORMAL is durable across process crashes in WAL mode (only an OS crash can lose the last commits).
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
}

function wrap(sqlite: Database.Database): Db {
  cacheStatements(sqlite);
  return drizzle({ client: sqlite });
}

/** better-sqlite3's "unable to open database file" does not say which file. */
function openFile(file: string, readonly: boolean): Database.Database {
  try {
    return new Database(file, { readonly, fileMustExist: readonly });
  } catch (error) {
    const code = sqliteCodeOf(error);
    if (code) throw new Database.SqliteError(`${(error as Error).message}: ${file}`, code);
    throw error;
  }
}

/**
 * The SQLite result code (`SQLITE_BUSY`, …) of an error better-sqlite3 threw, else undefined. Not
 * `instanceof Database.SqliteError`: the native addon throws the class of whichever copy of
 * better-sqlite3's JavaScript opened a database first in the process. `proofgate serve` loads two:
 * dist/cli.cjs's inlined copy opens the file first, so in node_modules' copy, which dist/server.cjs
 * and Next run on, `instanceof` was false and a write that met another process's lock failed after
 * one 20 ms try instead of waiting its turn.
 */
export function sqliteCodeOf(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
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
      const busy = sqliteCodeOf(error)?.startsWith("SQLITE_BUSY") ?? false;
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
 * then sleeps 1–4 ms (random, awaited: see beginImmediate) and tries again, for up to WRITE_WAIT_MS
 * in all. A try that did not get the lock ran nothing of `action`.
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
  // Another connection holds SQLite's write lock (another process, or this one's other bundle): the
  // wait must let the event loop run (beginImmediate), so the write takes the awaiting path; nothing
  // of it has run yet.
  const waitable = (error: unknown) => {
    if (error instanceof WriteLockBusy) return writeTransaction(db, action);
    throw error;
  };
  let value: T | Promise<T>;
  try {
    // A synchronous action and a free write lock make this synchronous: its value, never a promise.
    value = withLockSync(db.$client, () =>
      db.$client.inTransaction ? (inSavepoint(db, synchronousOnly(action)) as T) : (inTransaction(db, synchronousOnly(action), beginImmediateNow) as T),
    );
  } catch (error) {
    return waitable(error);
  }
  return isThenable(value) ? Promise.resolve(value).catch(waitable) : value;
}

/** SQLite's write lock was not free within one try (writeTransactionSync then waits for it the awaiting way). */
class WriteLockBusy extends Error {}

/** `BEGIN IMMEDIATE` in one try (up to WRITE_TRY_MS inside SQLite), else WriteLockBusy. */
function beginImmediateNow(writer: Writer, sqlite: Database.Database): void {
  sqlite.pragma(`busy_timeout = ${WRITE_TRY_MS}`);
  try {
    if (tryBeginImmediate(writer, sqlite) !== undefined) throw new WriteLockBusy("the write lock is held by another connection");
  } finally {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
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
  return withLock(sqlite, () => (sqlite.inTransaction ? action(writerOf(db).tx) : inTransaction(db, action, (writer) => void writer.begin.run())));
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

function inTransaction<T>(
  db: Db,
  action: (tx: Tx) => T | Promise<T>,
  begin: (writer: Writer, sqlite: Database.Database) => void | Promise<void>,
): T | Promise<T> {
  const sqlite = db.$client;
  const writer = writerOf(db);
  const began = begin(writer, sqlite);
  const run = () =>
    settle(
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
  // The write lock is usually free at once: then a synchronous action's transaction stays synchronous.
  return began ? began.then(run) : run();
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

/**
 * `BEGIN IMMEDIATE`: at once when the write lock is free (no promise, no turn of the event loop),
 * else tries again after an awaited 1–4 ms sleep until WRITE_WAIT_MS have passed. The sleep must not
 * block the thread: the lock's holder may be another connection of this very process (the server
 * runs several bundles, each with its own connection, and a write transaction awaits between its
 * statements), and a blocking sleep would keep it from ever committing — every writer of the
 * process frozen until the timeout, then "database is locked".
 */
function beginImmediate(writer: Writer, sqlite: Database.Database): void | Promise<void> {
  const deadline = Date.now() + WRITE_WAIT_MS;
  sqlite.pragma(`busy_timeout = ${WRITE_TRY_MS}`);
  let waiting: Promise<void> | undefined;
  try {
    if (tryBeginImmediate(writer, sqlite) === undefined) return;
    waiting = (async () => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 4)));
        const busy = tryBeginImmediate(writer, sqlite);
        if (busy === undefined) return;
        if (Date.now() >= deadline) throw busy;
      }
    })().finally(() => sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`));
    return waiting;
  } finally {
    if (!waiting) sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/** One try at `BEGIN IMMEDIATE` (waiting up to the connection's busy timeout inside SQLite): undefined once begun, or the SQLITE_BUSY it met. */
function tryBeginImmediate(writer: Writer, sqlite: Database.Database): unknown {
  try {
    writer.beginImmediate.run();
    return undefined;
  } catch (error) {
    const busy = (sqliteCodeOf(error)?.startsWith("SQLITE_BUSY") ?? false) && !sqlite.inTransaction;
    if (!busy) throw error;
    return error;
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

/** The bytes of a freshly migrated database: migrated once per process, copied for each memory database. */
let migratedImage: Buffer | undefined;

/**
 * A fresh, migrated, private in-memory database (tests). The first one in a process replays every
 * migration; the rest are copies of its bytes (`new Database(buffer)` copies them into a database
 * of its own), which costs a fraction of a millisecond instead of the migrations' ~50 ms.
 */
export function createMemoryDb(): Db {
  migratedImage ??= (() => {
    const first = openDatabase(":memory:").$client;
    const image = first.serialize();
    first.close();
    return image;
  })();
  const sqlite = new Database(migratedImage);
  configure(sqlite);
  return wrap(sqlite);
}

export function resolveDbPath(explicit?: string): string {
  return explicit ?? process.env.PROOFGATE_DB ?? DEFAULT_DB_PATH;
}

/** The setting that selects PostgreSQL for a server process or a command: a postgres:// URL. */
export const DATABASE_URL_ENV = "PROOFGATE_DATABASE_URL";

/** The global flags that name a ledger: `--db <file>` (SQLite) or `--database-url <url>` (PostgreSQL). */
export interface LedgerFlags {
  db?: string;
  databaseUrl?: string;
}

/** The flags or the environment name a ledger in a way that cannot be used (the message names which and why). */
export class LedgerChoiceError extends Error {}

/**
 * Which ledger to open: `--database-url`, else `--db`, else PROOFGATE_DATABASE_URL, else
 * PROOFGATE_DB, else ./data/proofgate.db. A flag beats the environment, so `--db x.db` works on a
 * machine whose environment names a PostgreSQL database. Returns a SQLite file or a postgres:// URL
 * (openLedger tells them apart).
 */
export function resolveLedger(flags: LedgerFlags = {}): string {
  if (flags.db !== undefined && flags.databaseUrl !== undefined) {
    throw new LedgerChoiceError("--db and --database-url: give one or the other (--db names a SQLite file, --database-url a PostgreSQL database)");
  }
  if (flags.databaseUrl !== undefined) return postgresUrl(flags.databaseUrl, "--database-url");
  if (flags.db !== undefined) return flags.db;
  const fromEnv = process.env[DATABASE_URL_ENV];
  if (fromEnv) return postgresUrl(fromEnv, DATABASE_URL_ENV);
  return resolveDbPath();
}

function postgresUrl(value: string, source: string): string {
  if (!isPostgresUrl(value))
    throw new LedgerChoiceError(
      `${source}: must be a postgres:// or postgresql:// URL (a SQLite file goes in --db or PROOFGATE_DB), got "${value.slice(0, 40)}"`,
    );
  return value;
}

/** Whether a ledger target (resolveLedger's answer) is a PostgreSQL database. */
export function isPostgresTarget(target: string): boolean {
  return isPostgresUrl(target);
}

let shared: Db | undefined;
let opening: Promise<Db> | undefined;

/**
 * Open the process-wide ledger (resolveLedger: PROOFGATE_DATABASE_URL or PROOFGATE_DB) and keep it.
 * A server process awaits this before it answers its first request: on PostgreSQL it connects and
 * applies pending migrations (once, however many servers start together), which cannot happen
 * inside the synchronous getDb().
 */
export function openSharedLedger(): Promise<Db> {
  if (shared) return Promise.resolve(shared);
  opening ??= openLedger(resolveLedger()).then(
    (db) => (shared = db),
    (error: unknown) => {
      opening = undefined;
      throw error;
    },
  );
  return opening;
}

/**
 * The process-wide database. A SQLite file opens on first use, so `next build` never touches it; a
 * PostgreSQL database must have been opened by openSharedLedger first. "Process-wide" means this
 * copy of the module: the production server runs several bundles (the API's, Next's instrumentation,
 * its pages and route handlers), and each opens its own handle (a connection, or a pool) on the
 * first request that reaches it.
 */
export function getDb(): Db {
  if (shared) return shared;
  const target = resolveLedger();
  if (isPostgresUrl(target)) {
    throw new Error(
      `${DATABASE_URL_ENV}: a PostgreSQL ledger is opened by awaiting openSharedLedger() before getDb() (in each server bundle, before its first request)`,
    );
  }
  shared = openDatabase(target);
  return shared;
}

/** Close the process-wide handle (tests, graceful shutdown). */
export async function closeDb(): Promise<void> {
  const db = shared;
  shared = undefined;
  opening = undefined;
  if (db) await closeLedger(db);
}
