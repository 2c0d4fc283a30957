import type { SQL } from "drizzle-orm";
import type { DbOrTx } from "./client";
import { mustWait, withLock } from "./connection-lock";
import { pgRootOf } from "./pg/ledger";

/**
 * How services run a query, on either engine. A Drizzle query built on SQLite runs synchronously
 * (`.get()`, `.all()`, `.run()`, `.values()`); the same query built on PostgreSQL has none of those
 * and is awaited instead. Services call these, and await them, so their code does not depend on
 * the engine; on SQLite each is the synchronous call it replaces, one microtask later.
 *
 * Types come from the SQLite builder, which is what the services are written against.
 */
interface SqliteRunnable {
  get(): unknown;
  all(): unknown;
  run(): unknown;
  values(): unknown;
}

type Thenable<T> = PromiseLike<T>;

/**
 * A SQLite statement outside any transaction of its own runs on the connection every request
 * shares: while another call chain's transaction is open there (awaiting), it waits for that
 * transaction to end instead of running inside it (db/connection-lock.ts). Free, it runs at once.
 */
function onConnection<T>(connection: object | undefined, run: () => T): T | Promise<T> {
  return connection && mustWait(connection) ? withLock(connection, run) : run();
}

/** The better-sqlite3 connection a SQLite Drizzle builder or handle runs on. */
function connectionOfQuery(query: object): object | undefined {
  const q = query as { $client?: object; session?: { client?: object } };
  return q.$client ?? q.session?.client;
}

/** The first row of the query (undefined when there is none). */
export async function queryGet<Q extends Pick<SqliteRunnable, "get">>(query: Q): Promise<ReturnType<Q["get"]>> {
  if (typeof query.get === "function") return onConnection(connectionOfQuery(query), () => query.get() as ReturnType<Q["get"]>);
  const rows = (await (query as unknown as Thenable<unknown[]>)) ?? [];
  return rows[0] as ReturnType<Q["get"]>;
}

/** Every row of the query. */
export async function queryAll<Q extends Pick<SqliteRunnable, "all">>(query: Q): Promise<ReturnType<Q["all"]>> {
  if (typeof query.all === "function") return onConnection(connectionOfQuery(query), () => query.all() as ReturnType<Q["all"]>);
  return (await (query as unknown as Thenable<unknown[]>)) as ReturnType<Q["all"]>;
}

/** Every row of the query as an array of its selected values, in selection order. */
export async function queryValues<Q extends Pick<SqliteRunnable, "values">>(query: Q): Promise<ReturnType<Q["values"]>> {
  if (typeof query.values === "function") return onConnection(connectionOfQuery(query), () => query.values() as ReturnType<Q["values"]>);
  const rows = (await (query as unknown as Thenable<Record<string, unknown>[]>)) ?? [];
  return rows.map((row) => Object.values(row)) as ReturnType<Q["values"]>;
}

/** Run a statement for its effect. */
export async function queryRun<Q extends Pick<SqliteRunnable, "run">>(query: Q): Promise<ReturnType<Q["run"]>> {
  if (typeof query.run === "function") return onConnection(connectionOfQuery(query), () => query.run() as ReturnType<Q["run"]>);
  const result = (await (query as unknown as Thenable<{ rowCount?: number | null } | unknown[]>)) ?? [];
  return { changes: Array.isArray(result) ? result.length : (result.rowCount ?? 0) } as ReturnType<Q["run"]>;
}

type RawDb = Pick<DbOrTx, "get" | "all" | "run" | "values">;

/** On PostgreSQL the ledger handle has no `get/all/run/values`: raw SQL goes through `execute`. */
interface PgExecutor {
  execute(query: SQL): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

function pgExecutor(db: RawDb): PgExecutor | undefined {
  return typeof (db as Partial<RawDb>).get === "function" ? undefined : (db as unknown as PgExecutor);
}

/** The first row of a raw SQL query. */
export async function rawGet<T>(db: RawDb, query: SQL): Promise<T> {
  const pg = pgExecutor(db);
  if (pg) return (await pg.execute(query)).rows[0] as T;
  return onConnection(connectionOfQuery(db), () => db.get<T>(query));
}

/** Every row of a raw SQL query. */
export async function rawAll<T>(db: RawDb, query: SQL): Promise<T[]> {
  const pg = pgExecutor(db);
  if (pg) return (await pg.execute(query)).rows as T[];
  return onConnection(connectionOfQuery(db), () => db.all<T>(query));
}

/** Every row of a raw SQL query as arrays of values, in the order the query selects them. */
export async function rawValues<T extends unknown[]>(db: RawDb, query: SQL): Promise<T[]> {
  const pg = pgExecutor(db);
  if (pg) return (await pg.execute(query)).rows.map((row) => Object.values(row)) as T[];
  return onConnection(connectionOfQuery(db), () => db.values<T>(query) as T[]);
}

/** Run a raw SQL statement for its effect: `changes` is the number of rows it wrote. */
export async function rawRun(db: RawDb, query: SQL): Promise<{ changes: number }> {
  const pg = pgExecutor(db);
  if (pg) return { changes: (await pg.execute(query)).rowCount ?? 0 };
  return onConnection(connectionOfQuery(db), () => db.run(query));
}

/**
 * The fragment of SQL the engine under `db` understands, where the two differ (`IS NOT` against
 * `IS DISTINCT FROM`, `json_each` against `jsonb_array_elements_text`, booleans summed as integers…).
 * Keep both spellings side by side at the place that needs them.
 */
export function sqlFor(db: object, fragments: { sqlite: SQL; postgres: SQL }): SQL {
  return pgRootOf(db) ? fragments.postgres : fragments.sqlite;
}
