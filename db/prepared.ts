import type Database from "better-sqlite3";
import { type SQL, getTableColumns, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db, type DbOrTx, connectionOf } from "./client";
import { pgRootOf } from "./pg/ledger";
import { preparePrivately } from "./statement-cache";

const caches = new WeakMap<Database.Database, Map<string, unknown>>();

/**
 * A query built and prepared once per connection, for the hot write paths. Preparing is what a
 * write costs most here: SQLite compiles every trigger of the table into the statement (an INSERT
 * INTO task_transitions, with its rollup triggers, takes ~2.5 ms to prepare and ~0.05 ms to run),
 * and Drizzle building the SQL text again costs more than running it. better-sqlite3 statements
 * belong to one Database, so the cache is per connection (`db.$client`); `name` must be unique
 * per statement text (a module prefix: `task.move.update:<columns>`).
 *
 * A statement prepared on `db` runs on the same connection as a transaction opened on it, so it
 * may be used inside `writeTransaction(db, …)`; `db` may also be the transaction handle (the
 * cache is the connection's either way, and Drizzle binds the query to the connection's session,
 * which the handle shares).
 */
export function prepared<T>(db: DbOrTx, name: string, build: () => T): T {
  if (pgRootOf(db)) return preparedOnPg(build) as T;
  const connection = connectionOf(db);
  let cache = caches.get(connection);
  if (!cache) {
    cache = new Map();
    caches.set(connection, cache);
  }
  let query = cache.get(name) as T | undefined;
  if (query === undefined) {
    // Kept and run many times: its statement must be its own, not the connection cache's.
    query = preparePrivately(connection, build);
    cache.set(name, query);
  }
  return query;
}

/**
 * On PostgreSQL a prepared query is built where it runs: the ledger handle (db/pg/ledger.ts) builds
 * it on the transaction open in this call chain, and a query kept across calls would stay bound to
 * the transaction it was first built in. It answers SQLite's prepared-query calls: `get` (the
 * first row), `all` (the rows), `run` (`changes`: the rows written). `build` may return one query
 * or an object of them (`{ rows: …, updates: … }`), as on SQLite.
 */
function preparedOnPg(build: () => unknown): unknown {
  type Executable = { execute: (params?: Record<string, unknown>) => Promise<unknown> };
  const runner = (make: () => Executable) => ({
    get: async (params?: Record<string, unknown>) => ((await make().execute(params)) as unknown[])[0],
    all: async (params?: Record<string, unknown>) => (await make().execute(params)) as unknown[],
    run: async (params?: Record<string, unknown>) => {
      const result = (await make().execute(params)) as { rowCount?: number | null } | unknown[];
      return { changes: Array.isArray(result) ? result.length : (result.rowCount ?? 0) };
    },
  });
  // Building executes nothing: this only tells one query from an object of them.
  const shape = build() as Executable | Record<string, Executable>;
  if (typeof shape.execute === "function") return runner(build as () => Executable);
  return Object.fromEntries(Object.keys(shape).map((key) => [key, runner(() => (build() as Record<string, Executable>)[key]!)]));
}

/**
 * A placeholder Drizzle binds exactly as given: `{ column: bound("column") }` in `.set()` or
 * `.values()`. Drizzle's own placeholder in a SET or VALUES encodes the value through the column
 * but does not let a null through (a null date throws, a null JSON value becomes the text "null"),
 * so the values are encoded beforehand with `driverValues`.
 */
export function bound(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}

/** `{ key: bound(key) }` for each key. */
export function boundAll<K extends string>(keys: readonly K[]): Record<K, SQL> {
  return Object.fromEntries(keys.map((key) => [key, bound(key)])) as Record<K, SQL>;
}

/**
 * Values for `bound` placeholders, encoded the way Drizzle encodes them for `table`'s columns
 * (dates → epoch milliseconds, JSON → text, booleans → 0/1); null and undefined become null.
 */
export function driverValues<T extends SQLiteTable>(table: T, values: Partial<T["$inferInsert"]>, keys: readonly string[]): Record<string, unknown> {
  const columns = getTableColumns(table);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = (values as Record<string, unknown>)[key];
    const column = columns[key];
    if (!column) throw new Error(`no column ${key}`);
    out[key] = value === null || value === undefined ? null : column.mapToDriverValue(value);
  }
  return out;
}

/**
 * `INSERT INTO table (the columns given) VALUES (…) [ON CONFLICT DO NOTHING] RETURNING *`, prepared
 * once per connection and set of columns given (`name` + the column names): the row inserted, or
 * undefined when `onConflictDoNothing` skipped it. A column not given takes its schema default, as
 * Drizzle's unprepared insert gives it (this schema has no `$defaultFn`, which would be frozen).
 */
export async function insertReturning<T extends SQLiteTable>(
  db: Db,
  name: string,
  table: T,
  values: T["$inferInsert"],
  options: { onConflictDoNothing?: boolean } = {},
): Promise<T["$inferSelect"] | undefined> {
  const given = values as Record<string, unknown>;
  const keys = Object.keys(given)
    .filter((key) => given[key] !== undefined)
    .sort();
  const query = prepared(db, `${name}:${options.onConflictDoNothing ? "or_nothing:" : ""}${keys.join(",")}`, () => {
    const insert = (db as Db).insert(table as SQLiteTable).values(boundAll(keys) as never);
    return (options.onConflictDoNothing ? insert.onConflictDoNothing() : insert).returning().prepare();
  });
  return (await query.get(driverValues(table, values, keys))) as T["$inferSelect"] | undefined;
}
