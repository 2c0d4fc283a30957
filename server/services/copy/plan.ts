import { is } from "drizzle-orm";
import { SQLiteTable, getTableConfig } from "drizzle-orm/sqlite-core";
import * as schema from "@/db/schema";

/** How a column's values are carried between the engines (docs/plans/postgresql.md §2, the PG storage table). */
export type ColumnKind = "integer" | "boolean" | "real" | "text";

export interface ColumnPlan {
  name: string;
  kind: ColumnKind;
  notNull: boolean;
}

export interface TablePlan {
  name: string;
  /** Every column, in the SQLite table's order; the engines read and write them by name. */
  columns: ColumnPlan[];
  /** The single-column primary key (null for a composite one): the key the deferred columns are set by. */
  primaryKey: string | null;
  /** The integer primary key that is an identity on PostgreSQL and AUTOINCREMENT on SQLite. */
  identity: string | null;
  /**
   * Foreign-key columns inserted as NULL and set once every table is in (self-references and the
   * edge that breaks a cycle): PostgreSQL checks the ledger's foreign keys after each statement
   * (they are not DEFERRABLE), so a row cannot name one that is not inserted yet.
   */
  deferred: string[];
}

const KINDS: Record<string, ColumnKind> = {
  SQLiteInteger: "integer",
  SQLiteTimestamp: "integer",
  SQLiteBoolean: "boolean",
  SQLiteReal: "real",
  SQLiteText: "text",
  SQLiteTextJson: "text",
};

/**
 * Tables of one deployment's passing state, not of the ledger: never copied, and rows in them do not
 * make a target "not empty" (a sign-in tried on a new server before the copy must not block it,
 * and one install's sign-in lockouts are no business of another's).
 */
export const NOT_COPIED: ReadonlySet<string> = new Set(["auth_rate_limits"]);

/** The ledger's tables (the SQLite schema, which the PostgreSQL twins mirror name for name) in an order every foreign key points backwards in. */
export function copyPlan(): TablePlan[] {
  const tables = (Object.values(schema) as unknown[])
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .filter((table) => !NOT_COPIED.has(getTableConfig(table).name));
  return orderTables(
    tables.map((table) => {
      const config = getTableConfig(table);
      const columns = config.columns.map((column): ColumnPlan => {
        const kind = KINDS[column.columnType];
        if (!kind) throw new Error(`copy: ${config.name}.${column.name} has a column type the copy does not know (${column.columnType})`);
        return { name: column.name, kind, notNull: column.notNull };
      });
      const primary = config.columns.filter((column) => column.primary);
      const identity = primary.length === 1 && primary[0]!.columnType === "SQLiteInteger" ? primary[0]!.name : null;
      const references = config.foreignKeys.flatMap((fk) => {
        const reference = fk.reference();
        return reference.columns.map((column) => ({ column: column.name, table: getTableConfig(reference.foreignTable).name }));
      });
      return { name: config.name, columns, primaryKey: primary.length === 1 ? primary[0]!.name : null, identity, deferred: [], references };
    }),
  );
}

interface Unordered extends TablePlan {
  references: { column: string; table: string }[];
}

/**
 * Kahn's order over the foreign keys. A self-reference is deferred (a row may name a later one); a
 * cycle between tables (today goals → attempts → worktrees → branches → goals, and goals ⇄
 * attempts) is broken at a nullable column on it, chosen deterministically: the one whose deferral leaves
 * the fewest cycle edges (the first in schema order on a tie).
 */
function orderTables(tables: Unordered[]): TablePlan[] {
  for (const table of tables) {
    for (const reference of table.references) if (reference.table === table.name) table.deferred.push(reference.column);
  }
  const ordered: TablePlan[] = [];
  const done = new Set<string>();
  const pending = (table: Unordered) =>
    table.references.filter(
      (r) => r.table !== table.name && !done.has(r.table) && !table.deferred.includes(r.column) && tables.some((t) => t.name === r.table),
    );
  let left = [...tables];
  while (left.length > 0) {
    const ready = left.filter((table) => pending(table).length === 0);
    if (ready.length > 0) {
      for (const table of ready) {
        done.add(table.name);
        const { references: _references, ...plan } = table;
        ordered.push(plan);
      }
      left = left.filter((table) => !done.has(table.name));
      continue;
    }
    // A cycle: defer one nullable foreign-key column of a table in it.
    const byName = new Map(left.map((table) => [table.name, table]));
    /** Whether `from` reaches `to` along references still pending: the edge to→from then closes a cycle. */
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
      if (from === to) return true;
      if (seen.has(from)) return false;
      seen.add(from);
      const table = byName.get(from);
      return table !== undefined && pending(table).some((r) => reaches(r.table, to, seen));
    };
    const breakable = left.flatMap((table) =>
      pending(table)
        .filter((r) => !table.columns.find((c) => c.name === r.column)!.notNull && reaches(r.table, table.name))
        .map((r) => ({ table, column: r.column })),
    );
    // The column whose deferral leaves the fewest cycle edges (goals.created_by_attempt_id breaks both of today's cycles).
    const leftAfter = (candidate: { table: Unordered; column: string }) => {
      candidate.table.deferred.push(candidate.column);
      const count = left.reduce((n, table) => n + pending(table).filter((r) => reaches(r.table, table.name)).length, 0);
      candidate.table.deferred.pop();
      return count;
    };
    const chosen = breakable.map((candidate) => ({ candidate, count: leftAfter(candidate) })).sort((a, b) => a.count - b.count)[0]?.candidate;
    if (!chosen) throw new Error(`copy: the foreign keys of ${left.map((t) => t.name).join(", ")} form a cycle with no nullable column to break it at`);
    if (chosen.table.primaryKey === null)
      throw new Error(`copy: ${chosen.table.name}.${chosen.column} must be deferred but the table has no single-column key`);
    chosen.table.deferred.push(chosen.column);
  }
  for (const table of ordered) {
    if (table.deferred.length > 0 && table.primaryKey === null) throw new Error(`copy: ${table.name} has deferred columns but no single-column key`);
  }
  return ordered;
}
