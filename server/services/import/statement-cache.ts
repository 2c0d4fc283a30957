import type Database from "better-sqlite3";

/** Distinct statements kept at most (an import issues a few dozen; a bound against SQL built from values). */
const MAX_STATEMENTS = 1000;

/**
 * The statements Drizzle builds (its dialect writes keywords in lower case; the code base's own SQL
 * is upper case). Only those are shared: Drizzle uses each for one call and sets its mode itself,
 * whereas a hand-written statement may be kept with a mode set once (`prepare(…).pluck()`), which
 * handing the same object to another caller would change under it.
 */
const DRIZZLE_SQL = /^(?:select|insert into|update|delete from|with|savepoint|release savepoint|rollback to savepoint) /;

/**
 * Run `work` with the connection's `prepare` answering each SQL text it has seen from a cache.
 * The services build their queries with Drizzle, which compiles every query again on every call
 * (`prepare` was a quarter of an import's time); an import calls the same few dozen queries
 * hundreds of thousands of times. A statement is handed out in its default mode (Drizzle switches
 * statements to raw rows), never while it is still iterating (a busy one is prepared afresh), and
 * the connection's own `prepare` is back when `work` returns or throws.
 */
export function withStatementCache<T>(sqlite: Database.Database, work: () => T): T {
  if (Object.hasOwn(sqlite, "prepare")) return work(); // already inside one
  const original = sqlite.prepare;
  const cache = new Map<string, Database.Statement>();
  const cached = function prepare(this: Database.Database, source: string) {
    if (!DRIZZLE_SQL.test(source)) return original.call(sqlite, source);
    const hit = cache.get(source);
    if (hit && !hit.busy) {
      if (hit.reader) hit.raw(false).pluck(false).expand(false);
      return hit;
    }
    const statement = original.call(sqlite, source) as Database.Statement;
    if (!hit) {
      if (cache.size >= MAX_STATEMENTS) cache.clear();
      cache.set(source, statement);
    }
    return statement;
  } as Database.Database["prepare"];
  Object.defineProperty(sqlite, "prepare", { value: cached, configurable: true, writable: true });
  try {
    return work();
  } finally {
    delete (sqlite as { prepare?: unknown }).prepare;
  }
}
