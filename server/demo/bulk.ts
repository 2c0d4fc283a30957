import type Database from "better-sqlite3";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { analyticsRollupStatements, rebuildAnalyticsRollupsSql } from "@/db/enforcement";

type Row<T extends SQLiteTable> = Partial<T["$inferInsert"]>;

/**
 * Prepared-statement writer for bulk loads (demo data, benchmarks): about ten times faster than
 * building a Drizzle query per row, while still encoding each value through the Drizzle column
 * (JSON, epoch-ms timestamps, booleans) and still going through every trigger.
 */
export function createBulkWriter(sqlite: Database.Database) {
  const statements = new Map<string, Database.Statement>();

  function statement(key: string, build: () => string): Database.Statement {
    let stmt = statements.get(key);
    if (!stmt) {
      stmt = sqlite.prepare(build());
      statements.set(key, stmt);
    }
    return stmt;
  }

  function encode<T extends SQLiteTable>(table: T, row: Row<T>): { names: string[]; values: unknown[] } {
    const columns = getTableColumns(table);
    const names: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(row)) {
      if (value === undefined) continue;
      const column = columns[key];
      if (!column) throw new Error(`${getTableName(table)} has no column ${key}`);
      names.push(column.name);
      values.push(value === null ? null : column.mapToDriverValue(value));
    }
    return { names, values };
  }

  return {
    /** Insert one row; returns its rowid. */
    insert<T extends SQLiteTable>(table: T, row: Row<T>): number {
      const { names, values } = encode(table, row);
      const name = getTableName(table);
      const stmt = statement(`i:${name}:${names.join(",")}`, () => {
        const cols = names.map((n) => `"${n}"`).join(", ");
        return `INSERT INTO "${name}" (${cols}) VALUES (${names.map(() => "?").join(", ")})`;
      });
      return Number(stmt.run(...values).lastInsertRowid);
    },
    /** Update one row by its `id` column. */
    update<T extends SQLiteTable>(table: T, id: number | string, patch: Row<T>): void {
      const { names, values } = encode(table, patch);
      const name = getTableName(table);
      const stmt = statement(`u:${name}:${names.join(",")}`, () => `UPDATE "${name}" SET ${names.map((n) => `"${n}" = ?`).join(", ")} WHERE id = ?`);
      const result = stmt.run(...values, id);
      if (result.changes !== 1) throw new Error(`update of ${name} ${id} changed ${result.changes} rows`);
    },
  };
}

export type BulkWriter = ReturnType<typeof createBulkWriter>;

/** The tables `rebuildAnalyticsRollupsSql()` counts again from history (it empties each one first). */
function rebuiltTables(): string[] {
  return rebuildAnalyticsRollupsSql().flatMap((statement) => {
    const table = /^DELETE FROM "?(\w+)"?/i.exec(statement.trim())?.[1];
    return table ? [table] : [];
  });
}

/**
 * The triggers of `analyticsRollupStatements()` that write a table the rebuild recounts: what a
 * bulk load may leave out and count once at the end. The others (`blocked_at`, the identity rule)
 * keep firing.
 */
export function rollupTriggerNames(): string[] {
  const tables = rebuiltTables();
  return analyticsRollupStatements().flatMap((statement) => {
    const name = /^CREATE TRIGGER (?:IF NOT EXISTS )?"?(\w+)"?/i.exec(statement.trim())?.[1];
    if (!name) return [];
    const writesRollup = tables.some((table) => new RegExp(`\\b(?:INSERT INTO|UPDATE|DELETE FROM)\\s+"?${table}"?\\b`, "i").test(statement));
    return writesRollup ? [name] : [];
  });
}

/** Page cache for a bulk load (KiB): index pages stay in memory instead of being re-read and spilled. */
const BULK_CACHE_KIB = 256 * 1024;

/**
 * Run `load` as ONE transaction without the analytics rollup triggers: they are dropped at its
 * start, the rollups are counted once from the whole history (`rebuildAnalyticsRollupsSql()`) when
 * `load` is done, and the triggers are re-created from their own text before the commit. Other
 * connections never see the database without them (WAL readers see the state before the load, and
 * writers wait for the commit), and a failure rolls the drop back with the rows. Every other
 * trigger (immutability, the task machine, per-session counters) still fires on every row.
 * Call `catchUpReasonKinds` after it: the rebuild restarts the reason classification.
 */
export function loadWithRollupsRebuilt<T>(sqlite: Database.Database, load: () => T): T {
  const names = rollupTriggerNames();
  const previousCache = sqlite.pragma("cache_size", { simple: true }) as number;
  sqlite.pragma(`cache_size = -${BULK_CACHE_KIB}`);
  try {
    return sqlite.transaction(() => {
      const definitionOf = sqlite.prepare<[string], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?");
      const definitions = names.map((name) => {
        const row = definitionOf.get(name);
        if (!row) throw new Error(`the database has no trigger ${name}: it is not migrated to this version`);
        return row.sql;
      });
      for (const name of names) sqlite.exec(`DROP TRIGGER "${name}"`);
      const result = load();
      for (const statement of rebuildAnalyticsRollupsSql()) sqlite.exec(statement);
      for (const definition of definitions) sqlite.exec(definition);
      return result;
    })();
  } finally {
    sqlite.pragma(`cache_size = ${previousCache}`);
  }
}
