/**
 * Engine-neutral reads for a test's assertions, on a SQLite or a PostgreSQL ledger alike (over
 * db/query.ts's raw helpers): the rows of a raw query, every table's row count, the columns that
 * hold a string. Values come back as each driver gives them: a boolean column reads 1/0 on SQLite
 * and true/false on PostgreSQL (select `CAST(x AS integer)` to compare one); counts and bigints
 * are numbers on both.
 */
import { type SQL, sql } from "drizzle-orm";
import { type Db, engineOf } from "@/db/client";
import { rawAll, rawRun } from "@/db/query";

/** Every row of a raw query (`sql\`select … where id = ${id}\``: values are bound, on either engine). */
export function rowsOf<T = Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  return rawAll<T>(db, query);
}

/** The ledger's own tables (not SQLite's internals, not the migrations' bookkeeping). */
async function tableNames(db: Db): Promise<string[]> {
  const query =
    engineOf(db) === "postgres"
      ? sql`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`
      : sql`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '__drizzle%' order by name`;
  return (await rowsOf<{ name: string }>(db, query)).map((row) => row.name);
}

/** Every table's row count, in one statement: "nothing was written" is this map unchanged. */
export async function tableCountsOf(db: Db): Promise<Record<string, number>> {
  const names = await tableNames(db);
  const counts = sql.join(
    names.map((name) => sql`(select count(*) from ${sql.identifier(name)}) as ${sql.identifier(name)}`),
    sql`, `,
  );
  const [row] = await rowsOf<Record<string, number | bigint>>(db, sql`select ${counts}`);
  return Object.fromEntries(names.map((name) => [name, Number(row![name])]));
}

/** Every `table.column` whose stored value, as text, contains `needle`: a secret must be stored nowhere. */
export function columnsHolding(db: Db, needle: string): Promise<string[]> {
  return columnsWhere(db, (column, postgres) => {
    const text = sql`cast(${sql.identifier(column.name)} as text)`;
    return postgres ? sql`strpos(${text}, ${needle}) > 0` : sql`instr(${text}, ${needle}) > 0`;
  });
}

/**
 * Every `table.column` whose stored bytes contain `needle` (a binary key, any byte value, NUL
 * too): a blob or bytea column compared as it is stored, any other column by its text's UTF-8
 * bytes. The text form of a binary secret cannot be searched for on PostgreSQL, whose text holds
 * no NUL byte.
 */
export function columnsHoldingBytes(db: Db, needle: Buffer): Promise<string[]> {
  return columnsWhere(db, (column, postgres) => {
    const name = sql.identifier(column.name);
    if (!postgres) return sql`instr(cast(${name} as blob), ${needle}) > 0`;
    const bytes = column.type === "bytea" ? name : sql`convert_to(cast(${name} as text), 'UTF8')`;
    return sql`position(${needle}::bytea in ${bytes}) > 0`;
  });
}

/** Every `table.column` of the ledger for which some row satisfies `holds` (one statement per table). */
async function columnsWhere(db: Db, holds: (column: { name: string; type: string }, postgres: boolean) => SQL): Promise<string[]> {
  const postgres = engineOf(db) === "postgres";
  const found: string[] = [];
  for (const table of await tableNames(db)) {
    const query = postgres
      ? sql`select column_name as name, data_type as type from information_schema.columns where table_schema = current_schema() and table_name = ${table}`
      : sql`select name, type from pragma_table_info(${table})`;
    const columns = await rowsOf<{ name: string; type: string }>(db, query);
    // How many rows satisfy `holds`, column by column.
    const hits = columns.map((column) => sql`sum(case when ${holds(column, postgres)} then 1 else 0 end) as ${sql.identifier(column.name)}`);
    const [row] = await rowsOf<Record<string, number | null>>(db, sql`select ${sql.join(hits, sql`, `)} from ${sql.identifier(table)}`);
    for (const { name } of columns) if (Number(row?.[name] ?? 0) > 0) found.push(`${table}.${name}`);
  }
  return found;
}

/** How many rows of `table` match `where` (a bound `sql` fragment; every row without one). */
export async function countOf(db: Db, table: string, where: SQL = sql`1 = 1`): Promise<number> {
  const [row] = await rowsOf<{ n: number | string }>(db, sql`select count(*) as n from ${sql.identifier(table)} where ${where}`);
  return Number(row!.n);
}

/**
 * The rows of a query written as better-sqlite3 takes it (`?` placeholders, the values bound in
 * order), read as SQLite gives them on either engine: a boolean reads 1/0. For suites whose
 * assertions were written against SQLite's rows.
 */
export async function rowsLikeSqlite<T = Record<string, unknown>>(db: Db, text: string, ...params: unknown[]): Promise<T[]> {
  const rows = await rowsOf<Record<string, unknown>>(db, boundLikeSqlite(text, params));
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === "boolean" ? Number(v) : v]))) as T[];
}

/**
 * What a statement the database must refuse was refused with: the messages of the error and its
 * causes, joined by " ← " (Drizzle wraps the driver's error; a trigger's own words are in the
 * chain). Fails if the statement was not refused.
 */
export async function refusedWith(statement: Promise<unknown>): Promise<string> {
  const refused = await statement.then(
    () => undefined,
    (error: unknown) => error ?? new Error("refused"),
  );
  if (refused === undefined) throw new Error("expected the database to refuse the statement");
  const messages: string[] = [];
  for (let current: unknown = refused; current instanceof Error; current = current.cause) messages.push(current.message);
  return messages.join(" ← ");
}

/** The types of the events, oldest first (of one session when given). */
export async function eventTypesOf(db: Db, sessionId?: string): Promise<string[]> {
  const where = sessionId === undefined ? sql`` : sql` where session_id = ${sessionId}`;
  return (await rowsOf<{ type: string }>(db, sql`select type from events${where} order by id`)).map((r) => r.type);
}

/** A statement written as better-sqlite3 takes it (`?` placeholders), its values bound in order, run on either engine. */
export async function runLikeSqlite(db: Db, text: string, ...params: unknown[]): Promise<void> {
  await rawRun(db, boundLikeSqlite(text, params));
}

function boundLikeSqlite(text: string, params: unknown[]): SQL {
  const parts = text.split("?");
  return sql.join(
    parts.map((part, i) => (i === 0 ? sql.raw(part) : sql`${params[i - 1]}${sql.raw(part)}`)),
    sql``,
  );
}
