import type Database from "better-sqlite3";
import { type Db, engineOf } from "@/db/client";
import { holds } from "@/db/connection-lock";
import { PgBatch } from "@/db/pg/ledger";
import type { RecordBook } from "./records";

/**
 * A batch commits after this many rows or this long, whichever comes first: large enough that a
 * history of a million rows is a few hundred commits, short enough that the dashboard sees the
 * import advance every second and another writer (a hook, BAZINGA's own CLI) waits at most about a
 * second for the lock — well inside its busy timeout.
 */
const ROWS_PER_COMMIT = 2000;
const MS_PER_COMMIT = 1000;

/** When a batch commits by itself: after `rows` rows or `ms` milliseconds, whichever comes first. */
export interface BatchLimits {
  rows: number;
  ms: number;
}

/**
 * Writes imported rows into Proofgate a batch at a time: one write transaction per batch (so a large
 * import is fast and other writers wait at most about a second), each row inside its own savepoint
 * (the services' own transactions nest there), so one refused row is rolled back alone — with its
 * import record — and the rest of the batch stands.
 *
 * On SQLite the batch is `BEGIN IMMEDIATE` opened by hand on the one connection: the caller holds
 * the connection (`withConnection(db, …)`, db/client.ts) for as long as a batch is open, so no
 * other caller's statement runs inside the batch, and the services a row calls see the connection
 * held by their own call chain, so their `writeTransaction` nests as a savepoint. On PostgreSQL it
 * is a `PgBatch` (db/pg/ledger.ts): one write transaction under the writer lock, each row run in a
 * savepoint with that transaction current for the ledger handle.
 */
export class ImportWriter {
  private open = false;
  private rows = 0;
  private openedAt = 0;
  private batchMark = 0;
  private readonly sqlite: Database.Database | null;
  private pg: PgBatch | null = null;

  constructor(
    private readonly db: Db,
    private readonly book: RecordBook,
    private readonly limits: BatchLimits = { rows: ROWS_PER_COMMIT, ms: MS_PER_COMMIT },
  ) {
    this.sqlite = engineOf(db) === "sqlite" ? db.$client : null;
    // Each row's savepoint inside the open batch keeps a statement journal; past 64 KiB SQLite
    // spills it to a temporary file, and creating, writing and deleting those files was an eighth of
    // an import's CPU (system time). In memory they cost nothing; they are not what makes a commit
    // durable (the WAL is), so crash safety is unchanged.
    this.sqlite?.pragma("temp_store = MEMORY");
    book.readThrough((work) => this.read(work));
  }

  /**
   * Run one row's writes (awaited: its savepoint is released only once they are all done); a
   * throw rolls back exactly that row and is passed on.
   */
  async row<T>(work: () => T | Promise<T>): Promise<T> {
    const sqlite = this.sqlite;
    if (!sqlite) return this.rowOnPg(work);
    if (!this.open) {
      if (!holds(sqlite)) throw new Error("ImportWriter: hold the connection (withConnection) while a batch is open");
      sqlite.exec("BEGIN IMMEDIATE");
      this.opened();
    }
    const mark = this.book.mark();
    sqlite.exec("SAVEPOINT import_row");
    let value: T;
    try {
      value = await work();
      sqlite.exec("RELEASE import_row");
    } catch (error) {
      sqlite.exec("ROLLBACK TO import_row");
      sqlite.exec("RELEASE import_row");
      this.book.rollbackTo(mark);
      throw error;
    }
    if (this.due()) await this.flush();
    return value;
  }

  private async rowOnPg<T>(work: () => T | Promise<T>): Promise<T> {
    if (!this.open) {
      this.pg = await PgBatch.open(this.db);
      this.opened();
    }
    const mark = this.book.mark();
    let value: T;
    try {
      value = await this.pg!.row(work);
    } catch (error) {
      this.book.rollbackTo(mark);
      throw error;
    }
    if (this.due()) await this.flush();
    return value;
  }

  private opened(): void {
    this.open = true;
    this.rows = 0;
    this.openedAt = Date.now();
    this.batchMark = this.book.mark();
  }

  /** Count a row done: whether the batch is now due to commit. */
  private due(): boolean {
    this.rows += 1;
    return this.rows >= this.limits.rows || Date.now() - this.openedAt >= this.limits.ms;
  }

  /**
   * Run reads made between rows (the import records the importer looks up) where they see what the
   * open batch holds: on SQLite they do anyway (one connection); on PostgreSQL in its transaction.
   */
  read<T>(work: () => T | Promise<T>): T | Promise<T> {
    return this.open && this.pg ? this.pg.read(work) : work();
  }

  /** Commit what the open batch holds, so readers (the dashboard) see it. */
  async flush(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    const sqlite = this.sqlite;
    try {
      if (sqlite) sqlite.exec("COMMIT");
      else await this.takeBatch().commit();
      this.book.commit();
    } catch (error) {
      if (sqlite?.inTransaction) sqlite.exec("ROLLBACK");
      this.book.rollbackTo(this.batchMark);
      throw error;
    }
  }

  /** Give up the open batch (an unexpected failure): nothing of it is kept. */
  async abort(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    if (this.sqlite) {
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
    } else await this.takeBatch().rollback();
    this.book.rollbackTo(this.batchMark);
  }

  private takeBatch(): PgBatch {
    const batch = this.pg!;
    this.pg = null;
    return batch;
  }
}
