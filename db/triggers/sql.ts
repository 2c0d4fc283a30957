/**
 * SQL fragments that render for either engine: the triggers of db/enforcement.ts and
 * db/completion-gate.ts are written once with these, and rendered as SQLite triggers (the committed
 * migrations, byte for byte) or as PL/pgSQL (db/migrations-pg/0001_enforcement.sql). Plain text in a fragment is
 * the same on both engines; the helpers below are the only places the engines' SQL differs.
 */
export type Dialect = "sqlite" | "pg";

/** A piece of SQL text, rendered for one engine. */
export interface Sql {
  readonly render: (dialect: Dialect) => string;
}

export type SqlPart = Sql | string | number;

const isSql = (part: SqlPart): part is Sql => typeof part === "object";
const text = (part: SqlPart, dialect: Dialect) => (isSql(part) ? part.render(dialect) : String(part));

/** A fragment from a template: interpolated strings and numbers are the same text on both engines. */
export function sql(strings: TemplateStringsArray, ...values: SqlPart[]): Sql {
  return { render: (dialect) => strings.reduce((out, s, i) => out + s + (i < values.length ? text(values[i]!, dialect) : ""), "") };
}

/** Text that is the same on both engines. */
export const raw = (value: SqlPart): Sql => (isSql(value) ? value : { render: () => String(value) });

/** Different text per engine. */
export const dialectSql = (sqlite: SqlPart, pg: SqlPart): Sql => ({ render: (dialect) => text(dialect === "sqlite" ? sqlite : pg, dialect) });

/** Fragments joined by `separator`. */
export const join = (parts: readonly SqlPart[], separator: string): Sql => ({
  render: (dialect) => parts.map((part) => text(part, dialect)).join(separator),
});

/** `a IS NOT b`, null-safe inequality (PostgreSQL: `IS DISTINCT FROM`). Not for `IS NOT NULL`, which is portable. */
export const isNot = (a: SqlPart, b: SqlPart): Sql => dialectSql(sql`${a} IS NOT ${b}`, sql`${a} IS DISTINCT FROM ${b}`);
/** `a IS b`, null-safe equality (PostgreSQL: `IS NOT DISTINCT FROM`). */
export const is = (a: SqlPart, b: SqlPart): Sql => dialectSql(sql`${a} IS ${b}`, sql`${a} IS NOT DISTINCT FROM ${b}`);

/** Whether `s` is wrapped in one pair of parentheses from its first character to its last. */
function parenthesized(s: string): boolean {
  if (!s.startsWith("(") || !s.endsWith(")")) return false;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === "(") depth++;
    if (c === ")" && --depth === 0 && i < s.length - 1) return false;
  }
  return true;
}

/** A boolean as 0/1 for arithmetic (SQLite's booleans are already integers; PostgreSQL casts). */
export const asInt = (bool: SqlPart): Sql =>
  dialectSql(bool, {
    render: (dialect) => {
      const s = text(bool, dialect);
      return /^[\w.]+$/.test(s) || parenthesized(s) ? `${s}::int` : `(${s})::int`;
    },
  });

/** A condition that always holds / never holds (`WHERE 1`, `WHERE 0`). */
export const TRUE = dialectSql("1", "true");
export const FALSE = dialectSql("0", "false");

/** Whether any of a group's `bool` values is true (SQLite: `max` of 0/1; PostgreSQL: `bool_or`). */
export const anyTrue = (bool: SqlPart): Sql => dialectSql(sql`max(${bool})`, sql`bool_or(${bool})`);

/** UTC midnight of an epoch-ms value, as analytics' `bucketSql` computes a day (64-bit on both engines). */
const DAY_MS = 86_400_000;
export const day = (expr: SqlPart): Sql =>
  dialectSql(sql`(CAST(${expr} AS INTEGER) / ${DAY_MS} * ${DAY_MS})`, sql`(CAST(${expr} AS BIGINT) / ${DAY_MS} * ${DAY_MS})`);

/** The text value under `key` of the JSON object `json` (NULL when absent). */
export const jsonValue = (json: SqlPart, key: SqlPart): Sql =>
  dialectSql(sql`(SELECT value FROM json_each(${json}) WHERE key = ${key})`, sql`(SELECT value FROM jsonb_each_text((${json})::jsonb) WHERE key = ${key})`);

/** The alias a subquery in FROM needs on PostgreSQL 15 (SQLite's text has none). */
export const alias = (name: string): Sql => dialectSql("", ` AS ${name}`);

/** A row's physical id, for a table without a key column (PostgreSQL: `ctid`). */
export const rowid = (table?: string): Sql => (table ? dialectSql(`${table}.rowid`, `${table}.ctid`) : dialectSql("rowid", "ctid"));

/** `NULL AS column`, typed on PostgreSQL so a UNION of rows whose column is NULL in every branch keeps the column's type. */
export const nullAs = (column: string, pgType: string): Sql => dialectSql(`NULL AS ${column}`, `NULL::${pgType} AS ${column}`);

/** A string literal. */
export const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;
