import type Database from "better-sqlite3";
import { holds } from "@/db/connection-lock";
import type { RecordBook } from "./records";

/**
 * A batch commits after this many rows or this long, whichever comes first: large enough that a
 * history of a million rows is a few hundred commits, short enough that the dashboard sees the
 * import advance every second and another writer (a hook, BAZINGA's own CLI) waits at most about a
 * second for the lock — well inside its busy timeout.
 */
const ROWS_PER_COMMIT = 2000;
const MS_PER_COMMIT = 1000;

/**
 * Writes imported rows into Proofgate a batch at a time: one `BEGIN IMMEDIATE` transaction per
 * batch (so a large import is fast and other writers wait at most about a second), each
 * row inside its own savepoint (the services' own transactions nest there), so one refused row
 * is rolled back alone — with its import record — and the rest of the batch stands.
 *
 * The caller holds the connection (`withConnection(db, …)`, db/client.ts) for as long as a batch is
 * open: no other caller's statement then runs inside the batch, and the services a row calls see
 * the connection held by their own call chain, so their `writeTransaction` nests as a savepoint.
 */
export class ImportWriter {
  private open = false;
  private rows = 0;
  private openedAt = 0;
  private batchMark = 0;

  constructor(
    private readonly sqlite: Database.Database,
    private readonly book: RecordBook,
  ) {
    // Each row's savepoint inside the open batch keeps a statement journal; past 64 KiB SQLite
    // spills it to a temporary file, and creating, writing and deleting those files was an eighth of
    // an import's CPU (system time). In memory they cost nothing; they are not what makes a commit
    // durable (the WAL is), so crash safety is unchanged.
    sqlite.pragma("temp_store = MEMORY");
  }

  /**
   * Run one row's writes (awaited: its savepoint is released only once they are all done); a
   * throw rolls back exactly that row and is passed on.
   */
  async row<T>(work: () => T | Promise<T>): Promise<T> {
    if (!this.open) {
      if (!holds(this.sqlite)) throw new Error("ImportWriter: hold the connection (withConnection) while a batch is open");
      this.sqlite.exec("BEGIN IMMEDIATE");
      this.open = true;
      this.rows = 0;
      this.openedAt = Date.now();
      this.batchMark = this.book.mark();
    }
    const mark = this.book.mark();
    this.sqlite.exec("SAVEPOINT import_row");
    let value: T;
    try {
      value = await work();
      this.sqlite.exec("RELEASE import_row");
    } catch (error) {
      this.sqlite.exec("ROLLBACK TO import_row");
      this.sqlite.exec("RELEASE import_row");
      this.book.rollbackTo(mark);
      throw error;
    }
    this.rows += 1;
    if (this.rows >= ROWS_PER_COMMIT || Date.now() - this.openedAt >= MS_PER_COMMIT) this.flush();
    return value;
  }

  /** Commit what the open batch holds, so readers (the dashboard) see it. */
  flush(): void {
    if (!this.open) return;
    this.open = false;
    try {
      this.sqlite.exec("COMMIT");
      this.book.commit();
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
      this.book.rollbackTo(this.batchMark);
      throw error;
    }
  }

  /** Give up the open batch (an unexpected failure): nothing of it is kept. */
  abort(): void {
    if (!this.open) return;
    this.open = false;
    if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
    this.book.rollbackTo(this.batchMark);
  }
}
