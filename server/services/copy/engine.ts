import type { TablePlan } from "./plan";
import type { Value } from "./values";

export type EngineName = "sqlite" | "postgres";

/** One side of a copy, read through its own driver (the services stay SQLite-only; the copy carries its own two drivers). */
export interface LedgerReader {
  readonly engine: EngineName;
  /** For messages: the file, or the URL without its password. */
  readonly label: string;
  /** The columns of each table the database has (a table it lacks is absent). */
  columns(): Promise<Map<string, Set<string>>>;
  count(table: TablePlan): Promise<number>;
  /** The table's rows in batches of at most `batch`, each row's values in `table.columns` order. */
  rows(table: TablePlan, batch: number): AsyncIterable<Value[][]>;
  /** The last identity value handed out (SQLite's sqlite_sequence, PostgreSQL's sequence), or null. */
  highWater(table: TablePlan): Promise<bigint | null>;
  /** End the read (and its snapshot), close the connection. */
  close(): Promise<void>;
}

/** The target: a migrated database, inside the one transaction the whole copy is. */
export interface LedgerWriter extends LedgerReader {
  /** The first table (in `tables`' order) that holds a row, or null. */
  firstNonEmpty(tables: readonly TablePlan[]): Promise<string | null>;
  /** Switch the rules and rollups off for the copy (history rows would be refused, counters counted twice). */
  disableTriggers(tables: readonly TablePlan[]): Promise<void>;
  insert(table: TablePlan, rows: readonly Value[][]): Promise<void>;
  /** Set `column` of the rows keyed `[key, value]` (the deferred foreign keys). */
  update(table: TablePlan, column: string, pairs: readonly (readonly [Value, Value])[]): Promise<void>;
  enableTriggers(): Promise<void>;
  /** Continue the table's identity after max(id) and after the source's own high-water mark. */
  continueIdentity(table: TablePlan, sourceHighWater: bigint | null): Promise<void>;
  commit(): Promise<void>;
  /** Undo everything written (safe to call after a failure at any point). */
  rollback(): Promise<void>;
}

export const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** PostgreSQL's limit on a statement's parameters ($1 … $65535): a batch is at most 1,000 rows and at most this many values. */
export const PG_MAX_PARAMETERS = 65_535;
