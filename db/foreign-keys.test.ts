import { afterAll, describe, expect, it } from "vitest";
import { createMemoryDb } from "./client";

/**
 * Every foreign key is looked up from its child side: SQLite checks for children before it deletes
 * a parent (a purge deletes many), and the goal-contract triggers ask whether an evaluation names a
 * contract on every change to it. Without an index each lookup reads the whole child table, which
 * made saving goal contracts slower with every evaluation recorded (3 ms each at 10,000 sessions).
 */
const db = createMemoryDb();
afterAll(() => db.$client.close());

interface ForeignKey {
  table: string;
  columns: string[];
  parent: string;
}

function foreignKeys(): ForeignKey[] {
  const sqlite = db.$client;
  const tables = sqlite
    .prepare("SELECT name FROM pragma_table_list WHERE type = 'table' AND schema = 'main' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  return tables.flatMap((table) => {
    const rows = sqlite.prepare('SELECT id, seq, "from", "table" FROM pragma_foreign_key_list(?) ORDER BY id, seq').all(table) as {
      id: number;
      from: string;
      table: string;
    }[];
    const byId = new Map<number, typeof rows>();
    for (const row of rows) byId.set(row.id, [...(byId.get(row.id) ?? []), row]);
    return [...byId.values()].map((group) => ({ table, columns: group.map((row) => row.from), parent: group[0]!.table }));
  });
}

describe("foreign keys", () => {
  const keys = foreignKeys();

  it("the schema has foreign keys to check", () => {
    expect(keys.length).toBeGreaterThan(20);
  });

  it.each(keys.map((key) => [`${key.table}(${key.columns.join(", ")}) → ${key.parent}`, key] as const))("%s is found through an index", (_, key) => {
    const where = key.columns.map((column) => `"${column}" = ?`).join(" AND ");
    const plan = db.$client
      .prepare(`EXPLAIN QUERY PLAN SELECT 1 FROM "${key.table}" WHERE ${where}`)
      .all(...key.columns.map(() => 1))
      .map((row) => (row as { detail: string }).detail)
      .join("; ");
    expect(plan).toMatch(/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY|USING PRIMARY KEY/);
    expect(plan).not.toMatch(/^SCAN/);
  });
});
