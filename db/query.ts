import type { SQL } from "drizzle-orm";
import type { DbOrTx } from "./client";

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

/** The first row of the query (undefined when there is none). */
export async function queryGet<Q extends Pick<SqliteRunnable, "get">>(query: Q): Promise<ReturnType<Q["get"]>> {
  if (typeof query.get === "function") return query.get() as ReturnType<Q["get"]>;
  const rows = (await (query as unknown as Thenable<unknown[]>)) ?? [];
  return rows[0] as ReturnType<Q["get"]>;
}

/** Every row of the query. */
export async function queryAll<Q extends Pick<SqliteRunnable, "all">>(query: Q): Promise<ReturnType<Q["all"]>> {
  if (typeof query.all === "function") return query.all() as ReturnType<Q["all"]>;
  return (await (query as unknown as Thenable<unknown[]>)) as ReturnType<Q["all"]>;
}

/** Every row of the query as an array of its selected values, in selection order. */
export async function queryValues<Q extends Pick<SqliteRunnable, "values">>(query: Q): Promise<ReturnType<Q["values"]>> {
  if (typeof query.values === "function") return query.values() as ReturnType<Q["values"]>;
  const rows = (await (query as unknown as Thenable<Record<string, unknown>[]>)) ?? [];
  return rows.map((row) => Object.values(row)) as ReturnType<Q["values"]>;
}

/** Run a statement for its effect. */
export async function queryRun<Q extends Pick<SqliteRunnable, "run">>(query: Q): Promise<ReturnType<Q["run"]>> {
  if (typeof query.run === "function") return query.run() as ReturnType<Q["run"]>;
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
  return db.get<T>(query);
}

/** Every row of a raw SQL query. */
export async function rawAll<T>(db: RawDb, query: SQL): Promise<T[]> {
  const pg = pgExecutor(db);
  if (pg) return (await pg.execute(query)).rows as T[];
  return db.all<T>(query);
}

/** Every row of a raw SQL query as arrays of values, in the order the query selects them. */
export async function rawValues<T extends unknown[]>(db: RawDb, query: SQL): Promise<T[]> {
  const pg = pgExecutor(db);
  if (pg) return (await pg.execute(query)).rows.map((row) => Object.values(row)) as T[];
  return db.values<T>(query) as T[];
}

/** Run a raw SQL statement for its effect: `changes` is the number of rows it wrote. */
export async function rawRun(db: RawDb, query: SQL): Promise<{ changes: number }> {
  const pg = pgExecutor(db);
  if (pg) return { changes: (await pg.execute(query)).rowCount ?? 0 };
  return db.run(query);
}
