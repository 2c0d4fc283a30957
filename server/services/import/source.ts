import fs from "node:fs";
import Database from "better-sqlite3";
import { DomainError, ValidationError } from "@/server/domain/errors";

/** The file to import from is not there (exit 3). */
export class SourceMissingError extends DomainError {
  readonly kind = "not_found" as const;
  constructor(readonly file: string) {
    super("import.source_missing", `no file at ${file} (check the path to the database you want to import)`);
  }
}

/** Readers give up on a lock after this long and try again on the next pass. */
const SOURCE_BUSY_TIMEOUT_MS = 1000;

export interface SourceIdentity {
  dev: number;
  ino: number;
}

/**
 * Another program's SQLite file, opened read-only: nothing is ever written to it (SQLite's own
 * `-wal`/`-shm` companions are shared with its writers, as for any reader). A file that is not
 * SQLite at all is refused as bad input, naming the file.
 */
export function openSource(file: string, what: string): Database.Database {
  if (!fs.existsSync(file)) throw new SourceMissingError(file);
  if (!fs.statSync(file).isFile()) throw new ValidationError("path", "import.not_a_file", `${file} is not a file`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_CANTOPEN" && !fs.existsSync(file)) throw new SourceMissingError(file);
    throw error;
  }
  try {
    db.pragma(`busy_timeout = ${SOURCE_BUSY_TIMEOUT_MS}`);
    db.pragma("query_only = ON");
    db.prepare("SELECT count(*) FROM sqlite_master").get();
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === "SQLITE_NOTADB") {
      throw new ValidationError("path", "import.not_sqlite", `${file} is not ${what}: it is not an SQLite database at all`);
    }
    throw error;
  }
  return db;
}

/** The file's identity: a different inode means the file was replaced (e.g. restored from a backup). */
export function identityOf(file: string): SourceIdentity | null {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat ? { dev: stat.dev, ino: stat.ino } : null;
}

/** Tables and their columns, as the file has them. */
export class SourceSchema {
  private readonly columns = new Map<string, Set<string>>();

  constructor(db: Database.Database) {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    for (const table of tables) {
      const names = (db.prepare(`PRAGMA table_info("${table.replaceAll('"', '""')}")`).all() as { name: string }[]).map((c) => c.name);
      this.columns.set(table, new Set(names));
    }
  }

  hasTable(table: string): boolean {
    return this.columns.has(table);
  }

  has(table: string, column: string): boolean {
    return this.columns.get(table)?.has(column) ?? false;
  }

  tables(): string[] {
    return [...this.columns.keys()];
  }

  columnsOf(table: string): string[] {
    return [...(this.columns.get(table) ?? [])];
  }

  /** `"col"` when the table has it, else `NULL AS "col"`: one SELECT works on every version. */
  select(table: string, wanted: readonly string[]): string {
    return wanted.map((c) => (this.has(table, c) ? `"${c}"` : `NULL AS "${c}"`)).join(", ");
  }
}

/** Run reads inside one short read transaction: one consistent snapshot, and writers are never held up for long. */
export function readSnapshot<T>(db: Database.Database, read: () => T): T {
  db.exec("BEGIN");
  try {
    return read();
  } finally {
    db.exec("COMMIT");
  }
}
