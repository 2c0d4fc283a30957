import Database from "better-sqlite3";
import { openDatabase } from "@/db/client";
import { sessionSearchTriggerNames } from "@/db/session-search";
import { type LedgerReader, type LedgerWriter, quote } from "./engine";
import { type Value, toValue } from "./values";

/** A Value as better-sqlite3 binds it: booleans as 1/0, integers as bigint (exact). */
function bind(value: Value): bigint | number | string | null {
  return typeof value === "boolean" ? (value ? 1 : 0) : value;
}

function reader(sqlite: Database.Database, label: string, end: () => void): LedgerReader {
  return {
    engine: "sqlite",
    label,
    async columns() {
      const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
      return new Map(
        tables.map((name) => [name, new Set((sqlite.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(name) as string[]) ?? [])] as const),
      );
    },
    async count(table) {
      return Number(
        sqlite
          .prepare(`SELECT count(*) FROM ${quote(table.name)}`)
          .pluck()
          .get(),
      );
    },
    async *rows(table, batch) {
      const statement = sqlite
        .prepare(`SELECT ${table.columns.map((c) => quote(c.name)).join(", ")} FROM ${quote(table.name)}`)
        .raw(true)
        .safeIntegers(true);
      let rows: Value[][] = [];
      for (const raw of statement.iterate() as Iterable<unknown[]>) {
        rows.push(table.columns.map((column, i) => toValue(table, column, raw[i])));
        if (rows.length >= batch) {
          yield rows;
          rows = [];
        }
      }
      if (rows.length > 0) yield rows;
    },
    async highWater(table) {
      if (!table.identity) return null;
      const known = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get();
      if (!known) return null;
      const seq = sqlite.prepare("SELECT seq FROM sqlite_sequence WHERE name = ?").pluck().safeIntegers(true).get(table.name) as bigint | undefined;
      return seq ?? null;
    },
    async close() {
      end();
    },
  };
}

/** Read a SQLite ledger file: read-only, one snapshot for the whole copy (other writers go on; the copy sees the file as it was when it began). */
export function openSqliteReader(file: string): LedgerReader {
  const sqlite = new Database(file, { readonly: true, fileMustExist: true });
  try {
    sqlite.exec("BEGIN");
    // The snapshot begins at the first read.
    sqlite.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return reader(sqlite, file, () => {
    if (sqlite.inTransaction) sqlite.exec("COMMIT");
    sqlite.close();
  });
}

/**
 * Write into a SQLite ledger file: migrated (created if missing), then one `BEGIN IMMEDIATE`
 * transaction for the whole copy. Its rule and rollup triggers are dropped for the copy and
 * re-created from their own text (sqlite_master) before the commit, as server/demo/bulk.ts does;
 * the session-search triggers keep firing, so the search index covers the copied sessions.
 */
export function openSqliteWriter(file: string): LedgerWriter {
  const sqlite = openDatabase(file).$client;
  try {
    sqlite.exec("BEGIN IMMEDIATE");
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const base = reader(sqlite, file, () => {
    if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
    sqlite.close();
  });
  let dropped: { name: string; sql: string }[] = [];
  const inserts = new Map<string, Database.Statement>();
  return {
    ...base,
    async firstNonEmpty(tables) {
      for (const table of tables) if (sqlite.prepare(`SELECT 1 FROM ${quote(table.name)} LIMIT 1`).get()) return table.name;
      return null;
    },
    async disableTriggers(tables) {
      const names = new Set(tables.map((t) => t.name));
      const keep = new Set(sessionSearchTriggerNames());
      const triggers = sqlite.prepare("SELECT name, tbl_name AS tableName, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY rowid").all() as {
        name: string;
        tableName: string;
        sql: string;
      }[];
      dropped = triggers.filter((t) => names.has(t.tableName) && !keep.has(t.name));
      for (const trigger of dropped) sqlite.exec(`DROP TRIGGER ${quote(trigger.name)}`);
    },
    async insert(table, rows) {
      let statement = inserts.get(table.name);
      if (!statement) {
        statement = sqlite.prepare(
          `INSERT INTO ${quote(table.name)} (${table.columns.map((c) => quote(c.name)).join(", ")}) VALUES (${table.columns.map(() => "?").join(", ")})`,
        );
        inserts.set(table.name, statement);
      }
      for (const row of rows) statement.run(...row.map(bind));
    },
    async update(table, column, pairs) {
      const statement = sqlite.prepare(`UPDATE ${quote(table.name)} SET ${quote(column)} = ? WHERE ${quote(table.primaryKey!)} = ?`);
      for (const [key, value] of pairs) {
        const { changes } = statement.run(bind(value), bind(key));
        if (changes !== 1) throw new Error(`copy: ${table.name} has no row ${String(key)} to set ${column} on`);
      }
    },
    async enableTriggers() {
      for (const trigger of dropped) sqlite.exec(trigger.sql);
      dropped = [];
    },
    async continueIdentity(table, sourceHighWater) {
      // An explicit id moves sqlite_sequence to max(id) by itself; a source that handed out higher ids (rows since purged) keeps them used.
      if (!table.identity || sourceHighWater === null) return;
      const definition = sqlite.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table.name) as string | undefined;
      if (!definition || !/\bAUTOINCREMENT\b/i.test(definition)) return;
      const updated = sqlite.prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?").run(sourceHighWater, table.name);
      if (updated.changes === 0 && sourceHighWater > 0n)
        sqlite.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(table.name, sourceHighWater);
    },
    async commit() {
      sqlite.exec("COMMIT");
      sqlite.close();
    },
    async rollback() {
      if (!sqlite.open) return;
      if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
      sqlite.close();
    },
  };
}
