import type Database from "better-sqlite3";

/** Distinct statements kept per connection (the app issues a few hundred; a bound against SQL built from values). */
const MAX_STATEMENTS = 1000;

/**
 * The statements Drizzle builds (its dialect writes keywords in lower case; the code base's own SQL
 * is upper case). Only those are shared: Drizzle uses each for one call and sets its mode itself,
 * whereas a hand-written statement may be kept with a mode set once (`prepare(…).pluck()`), which
 * handing the same object to another caller would change under it.
 */
const DRIZZLE_SQL = /^(?:select|insert into|update|delete from|with|savepoint|release savepoint|rollback to savepoint) /;

interface Cache {
  statements: Map<string, Database.Statement>;
  /** > 0 while `preparePrivately` runs: statements prepared then are neither cached nor taken from the cache. */
  privateDepth: number;
}

const caches = new WeakMap<Database.Database, Cache>();

/**
 * Make the connection's `prepare` answer each Drizzle SQL text it has seen from a cache. Drizzle
 * compiles every query again on every call, and compiling is much of what a query costs here:
 * SQLite compiles each of a table's triggers into an INSERT or UPDATE, and an import calls the
 * same few dozen queries hundreds of thousands of times (`prepare` was a quarter of its time); a
 * dashboard read such as the approvals inbox went from 3.7 ms to 2.3 ms median.
 *
 * A statement is handed out in its default mode (Drizzle switches statements to raw rows) and never
 * while it is still iterating (a busy one is prepared afresh). better-sqlite3 re-compiles a cached
 * statement by itself when the schema changes (a migration, a dropped trigger).
 */
export function cacheStatements(sqlite: Database.Database): void {
  if (caches.has(sqlite)) return;
  const cache: Cache = { statements: new Map(), privateDepth: 0 };
  caches.set(sqlite, cache);
  const original = sqlite.prepare;
  const prepare = function prepare(this: Database.Database, source: string) {
    if (cache.privateDepth > 0 || !DRIZZLE_SQL.test(source)) return original.call(sqlite, source);
    const hit = cache.statements.get(source);
    if (hit && !hit.busy) {
      if (hit.reader) hit.raw(false).pluck(false).expand(false);
      return hit;
    }
    const statement = original.call(sqlite, source) as Database.Statement;
    if (!hit) {
      if (cache.statements.size >= MAX_STATEMENTS) cache.statements.clear();
      cache.statements.set(source, statement);
    }
    return statement;
  } as Database.Database["prepare"];
  Object.defineProperty(sqlite, "prepare", { value: prepare, configurable: true, writable: true });
}

/**
 * Run `build` with the cache set aside: for statements a caller keeps and runs many times (a
 * Drizzle `.prepare()`d query), which must not be handed to anyone else, since Drizzle may run a
 * kept statement without resetting its mode.
 */
export function preparePrivately<T>(sqlite: Database.Database, build: () => T): T {
  const cache = caches.get(sqlite);
  if (!cache) return build();
  cache.privateDepth++;
  try {
    return build();
  } finally {
    cache.privateDepth--;
  }
}
