import type Database from "better-sqlite3";
import { getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

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
