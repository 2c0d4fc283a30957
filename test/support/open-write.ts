/**
 * Another call chain's write transaction, held open on a connection: for tests of what must wait
 * for it (db/connection-lock.ts) rather than run inside it.
 */
import { sql } from "drizzle-orm";
import { type Db, writeTransaction } from "@/db/client";
import { rawRun } from "@/db/query";

/** A turn of the event loop: every microtask queued so far has run. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface OpenWrite {
  /** The write's outcome: settles once `end` was called. */
  writing: Promise<void>;
  /** Let the write finish: it commits, or rolls back with the error "rolled back". */
  end: () => void;
}

/**
 * A write that inserts session `id`, then awaits until `end()`: its transaction is open (and the
 * connection held) when this resolves. `then: "rollback"` makes it throw instead of committing.
 */
export async function openWrite(db: Db, id: string, then: "commit" | "rollback"): Promise<OpenWrite> {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const writing = writeTransaction(db, async (tx) => {
    await rawRun(tx, sql`INSERT INTO sessions (id) VALUES (${id})`);
    await ended;
    if (then === "rollback") throw new Error("rolled back");
  });
  await nextTurn();
  return { writing, end };
}
