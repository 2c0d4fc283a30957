/**
 * The function allow-list of `query` on PostgreSQL, read as PostgreSQL's lexer reads a statement:
 * a call hidden where a naive reader sees a string or a comment is found, and a word that only
 * looks like a call (a string, a comment, a keyword, an alias, a type, a CTE) is not refused.
 * The same statements run on a real database in query.engines.test.ts.
 */
// flake-risks wait: pg_sleep inside a query the guard reads as text or refuses: nothing sleeps
import { describe, expect, it } from "vitest";
import { UsageError } from "../errors";
import { assertAllowedCalls } from "./query-guard";

function refusal(sql: string): string | undefined {
  try {
    assertAllowedCalls(sql);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
}

describe("query's function allow-list on PostgreSQL", () => {
  it.each([
    ["SELECT key, status FROM tasks"],
    ["SELECT count(*) AS n, max(created_at) FROM sessions GROUP BY (mode) HAVING (count(*) > 1)"],
    ["WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r;"],
    ["WITH a(x) AS MATERIALIZED (VALUES (1)), b(y) AS NOT MATERIALIZED ((SELECT 2)) SELECT * FROM a, b"],
    ["SELECT x.a FROM (SELECT 1) AS x(a)"],
    ["SELECT CAST(1 AS numeric(10, 2)), 1::pg_catalog.numeric(4, 1), '2'::varchar(3)"],
    ["SELECT COALESCE(json_extract(metadata, '$.project_id'), 'default') AS pid FROM sessions WHERE id = 's'"],
    ["SELECT GROUP_CONCAT(cs.agent_type) AS consumers, pg_catalog.lower('X'), proofgate_sqlite.ifnull(NULL, 1) FROM consumption_scope cs"],
    ["SELECT row_number() OVER (PARTITION BY session_id ORDER BY id), sum(1) FILTER (WHERE id > 0) FROM tasks"],
    ["SELECT 'pg_terminate_backend(1); DELETE' AS s, $$pg_sleep(1)$$, $q$ ' $q$ -- set_config(1)\nFROM tasks"],
    ["SELECT /* pg_sleep( /* nested */ still comment */ 1 WHERE id IN (1, 2) AND EXISTS (SELECT 1) AND NOT (false)"],
    ["SELECT E'it\\'s', 'it''s', \"lower\"('x')"],
  ])("lets %j through", (sql) => {
    expect(refusal(sql)).toBeUndefined();
  });

  it.each([
    ["SELECT pg_terminate_backend(pg_backend_pid())", "pg_terminate_backend()"],
    ["SELECT PG_SLEEP (1)", "pg_sleep()"],
    ["SELECT pg_advisory_lock /* between */ (1)", "pg_advisory_lock()"],
    ['SELECT "pg_reload_conf"()', "pg_reload_conf()"],
    ["SELECT \"LOWER\"('x')", "LOWER()"],
    ["SELECT pg_catalog.set_config('role', 'none', true)", "pg_catalog.set_config()"],
    ["SELECT public.lower('x')", "public.lower()"],
    ["SELECT a.b.lower('x')", "a.b.lower()"],
    ["SELECT * FROM dblink('host=x', 'DELETE FROM tasks') AS t(a int)", "dblink()"],
    ["SELECT query_to_xml('DELETE FROM tasks', true, false, '')", "query_to_xml()"],
    ["SELECT 1 AS a -- a comment PostgreSQL ends at a carriage return\r, pg_terminate_backend(1) AS b", "pg_terminate_backend()"],
    ["SELECT 1 /* /* nested */ ' */, pg_terminate_backend(1) --' AS x", "pg_terminate_backend()"],
    ["SELECT E'\\'', pg_terminate_backend(1) -- '", "pg_terminate_backend()"],
    ["SELECT $a$ $b$ $a$, pg_terminate_backend(1) -- $b$", "pg_terminate_backend()"],
    ["SELECT ran\u212A() OVER ()", "ran\u212A()"],
    ["SELECT x FROM t x(a)", "x()"],
  ])("refuses %j, naming %s", (sql, name) => {
    expect(refusal(sql)).toBe(`sql: ${name} is not allowed: on PostgreSQL, query calls only pure functions (see docs/postgresql.md)`);
  });

  it.each([
    ["SELECT 1; SELECT 2", "sql: only a single read-only SELECT is allowed"],
    ["SELECT 1; -- and a comment\n DELETE FROM tasks", "sql: only a single read-only SELECT is allowed"],
    ['SELECT U&"d\\0061ta"(1)', 'sql: U&"…" identifiers are not allowed'],
    ["SELECT 'open", "sql: unterminated string"],
    ["SELECT 1 /* open", "sql: unterminated /* comment"],
    ["SELECT $x$ open", "sql: unterminated dollar-quoted string"],
  ])("refuses %j", (sql, message) => {
    expect(refusal(sql)).toBe(message);
  });
});
