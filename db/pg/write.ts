import { sql } from "drizzle-orm";
import type { PgDbOrTx, PgTx } from "./client";
import { sqlStateOf } from "./errors";

/** The advisory lock every write transaction takes first (`hashtext` of this name): one writer at a time across every server. */
export const WRITER_LOCK = "proofgate.writer";
/** How many times a write is re-run after a serialization failure or a deadlock. */
export const WRITE_RETRIES = 5;
/** Serialization failure, deadlock: the transaction was rolled back and may simply run again. */
const RETRYABLE = new Set(["40001", "40P01"]);

const takeWriterLock = sql`select pg_advisory_xact_lock(hashtext(${WRITER_LOCK}))`;

export interface PgWriteOptions {
  /** Re-runs after 40001/40P01 (default WRITE_RETRIES). */
  retries?: number;
}

/**
 * Run `action` as one write transaction on PostgreSQL, with SQLite's `BEGIN IMMEDIATE` semantics
 * (docs/plans/postgresql.md §3): `BEGIN ISOLATION LEVEL READ COMMITTED`, then
 * `pg_advisory_xact_lock(hashtext('proofgate.writer'))` before anything else, so writers run one at
 * a time across all processes and commit in the order they took the lock (event ids commit in id
 * order; the live tail by id has no gaps). READ COMMITTED, not REPEATABLE READ: every statement
 * sees the rows committed before it, so the snapshot is taken after the lock wait, and a
 * compare-and-set `UPDATE … WHERE id = $1 AND version = $2` that lost the race updates 0 rows.
 * The lock goes at COMMIT or ROLLBACK, or when the connection drops (a crashed server).
 *
 * A throw rolls back everything `action` wrote. A serialization failure (40001) or a deadlock
 * (40P01) re-runs the whole action, up to `retries` times, after 1–20 ms (random); the action must
 * therefore be re-runnable (the domain is pure; events are written in the same transaction).
 * Errors come back as PostgreSQL raised them (db/pg/errors.ts `toDomainError` translates them).
 *
 * Given a transaction handle (a write inside a write), `action` runs in a savepoint of it: the lock
 * is already held, and a retry is the outer write's business.
 */
export async function pgWriteTransaction<T>(db: PgDbOrTx, action: (tx: PgTx) => Promise<T>, options: PgWriteOptions = {}): Promise<T> {
  if (!("$client" in db)) return db.transaction(action);
  const retries = options.retries ?? WRITE_RETRIES;
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction(
        async (tx) => {
          await tx.execute(takeWriterLock);
          return action(tx);
        },
        { isolationLevel: "read committed" },
      );
    } catch (error) {
      if (attempt >= retries || !RETRYABLE.has(sqlStateOf(error) ?? "")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1 + Math.floor(Math.random() * 20)));
    }
  }
}
