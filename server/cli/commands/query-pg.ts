/**
 * `proofgate query` on PostgreSQL: one statement, on one connection, in a `REPEATABLE READ READ ONLY`
 * transaction that is rolled back, with a statement timeout, SQLite's functions on the search path
 * (migration 0004, schema proofgate_sqlite) and only allow-listed functions callable (query-guard.ts).
 * Rows read as SQLite's do: booleans 1/0, bigint and numeric as numbers.
 */
import type { CustomTypesConfig, Pool, QueryConfig } from "pg";
import { UsageError } from "../errors";
import { assertAllowedCalls } from "./query-guard";

/** How long a statement may run before PostgreSQL cancels it (`--timeout`). */
export const QUERY_TIMEOUT_MS = 30_000;

const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;

/** SQLite's spelling of values whose PostgreSQL type SQLite does not have. */
async function sqliteLikeTypes(): Promise<CustomTypesConfig> {
  const { default: pg } = await import("pg");
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") => {
      if (oid === BOOL) return (value: string) => (value === "t" ? 1 : 0);
      if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format ?? "text");
    }) as CustomTypesConfig["getTypeParser"],
  };
}

/** Run one read-only SELECT and return its rows, or refuse it (UsageError, exit 2) and change nothing. */
export async function queryPostgres(pool: Pool, sql: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<Record<string, unknown>[]> {
  assertAllowedCalls(sql);
  const types = await sqliteLikeTypes();
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query("BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
    try {
      await client.query(`SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}`);
      // The guard reads '…\'…' as PostgreSQL does only with standard strings.
      await client.query("SET LOCAL standard_conforming_strings = on");
      await client.query("SELECT set_config('search_path', 'proofgate_sqlite, ' || current_setting('search_path'), true)");
      // The extended protocol (a prepared statement) refuses a second statement by itself.
      const statement: QueryConfig & { queryMode: "extended" } = { text: sql, queryMode: "extended", types };
      const result = await client.query<Record<string, unknown>>(statement);
      return result.rows;
    } finally {
      await client.query("ROLLBACK").catch((error: Error) => (broken = error));
    }
  } catch (error) {
    throw refusal(error, timeoutMs);
  } finally {
    client.release(broken);
  }
}

/** PostgreSQL's refusal of the statement as a usage error naming `sql`; a lost server stays what it is (exit 4). */
function refusal(error: unknown, timeoutMs: number): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error).message;
  if (typeof code !== "string") return error;
  if (code === "57014") return new UsageError(`sql: canceled after ${timeoutMs} ms (--timeout): ${message}`);
  if (code === "25006") return new UsageError(`sql: only a single read-only SELECT is allowed (${message})`);
  if (code === "42883" && /\b(json_extract|group_concat|ifnull)\(/.test(message))
    return new UsageError(`sql: ${message} (SQLite's functions come with the ledger's migrations: proofgate migrate --database-url …)`);
  if (/^(0A|21|22|42|54)/.test(code)) return new UsageError(`sql: ${message}`);
  return error;
}
