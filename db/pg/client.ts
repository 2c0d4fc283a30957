/**
 * The PostgreSQL engine's connection: a `pg.Pool` under Drizzle's node-postgres driver
 * (docs/plans/postgresql.md §0). Nothing here loads `pg` or Drizzle's node-postgres driver until a
 * `postgres://` database is opened (`await import`), so SQLite mode, the CLI's cold start included,
 * never pays for them: this module's own imports are types only.
 */
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Pool, PoolConfig, types as PgTypes } from "pg";

/** A PostgreSQL database: Drizzle's PgDatabase over a pool (`$client`). */
export type PgDb = NodePgDatabase & { $client: Pool };
/** A transaction handle on a PgDb (one pooled connection inside BEGIN … COMMIT). */
export type PgTx = Parameters<Parameters<PgDb["transaction"]>[0]>[0];
export type PgDbOrTx = PgDb | PgTx;

/** `postgres://…` or `postgresql://…`: the URLs that select the PostgreSQL engine. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** How long a statement waits for a lock (the writer lock included) before failing with 55P03, which becomes "database busy": SQLite's busy timeout. */
export const LOCK_WAIT_MS = 10_000;

export interface PgOpenOptions {
  /** Apply pending migrations on open (default true), from `migrationsFolder` (default: db/migrations-pg, see findPgMigrationsFolder). */
  migrate?: boolean;
  migrationsFolder?: string;
  /** Pool size (default 10; tests use 4 so that forks × pool fit in max_connections). */
  max?: number;
  /** Shown in pg_stat_activity (default "proofgate"). */
  applicationName?: string;
  /** Lock wait before 55P03 (default LOCK_WAIT_MS). */
  lockTimeoutMs?: number;
}

/**
 * Open a PostgreSQL database: a pool, Drizzle's node-postgres driver, the process-global type
 * parsers (installTypeParsers), migrations applied (db/pg/migrate.ts, advisory-locked so several
 * processes starting at once apply each exactly once). Close it with `closePgDatabase`.
 */
export async function openPgDatabase(url: string, options: PgOpenOptions = {}): Promise<PgDb> {
  if (!isPostgresUrl(url)) throw new Error(`openPgDatabase: not a postgres:// URL: ${redactUrl(url)}`);
  const [{ default: pg }, { drizzle }] = await Promise.all([import("pg"), import("drizzle-orm/node-postgres")]);
  installTypeParsers(pg.types);
  const config: PoolConfig = {
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? "proofgate",
    lock_timeout: options.lockTimeoutMs ?? LOCK_WAIT_MS,
    // Idle pooled connections do not keep the process alive: a server whose HTTP server has closed
    // exits, though its webhook dispatcher (an unref'd timer) and Next's bundles still hold pools.
    allowExitOnIdle: true,
  };
  const pool = new pg.Pool(config);
  // An idle pooled connection that the server drops (a restart, pg_terminate_backend) emits 'error'
  // on the pool; unhandled, that would kill the process. The pool discards that connection itself.
  pool.on("error", (error) => console.warn(`proofgate: an idle PostgreSQL connection failed and was discarded: ${error.message}`));
  const db = drizzle({ client: pool }) as PgDb;
  try {
    if (options.migrate ?? true) {
      const { applyPgMigrations, findPgMigrationsFolder } = await import("./migrate");
      await applyPgMigrations(db, options.migrationsFolder ?? findPgMigrationsFolder());
    }
  } catch (error) {
    await pool.end();
    throw error;
  }
  return db;
}

/** End the pool (waits for checked-out connections to be released). */
export async function closePgDatabase(db: PgDb): Promise<void> {
  await db.$client.end();
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * bigint (int8: identity ids, count(*), sum() of integers) and numeric (sum() of bigints, avg())
 * come back from PostgreSQL as strings; the services, written against SQLite, expect numbers. The
 * parsers must be process-global: Drizzle hands every query its own `types` that fall back to the
 * global parsers, so a Pool's `types` option is never consulted (docs/plans/postgresql.md §0, 2b).
 * Values beyond 2^53 lose precision, as they would in SQLite through better-sqlite3.
 */
export function installTypeParsers(types: typeof PgTypes): void {
  types.setTypeParser(INT8, (value: string) => Number(value));
  types.setTypeParser(NUMERIC, (value: string) => Number(value));
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, "$1***@");
}
