/**
 * The services on PostgreSQL. The services are written against the SQLite tables and a `Db`
 * (db/client.ts); on PostgreSQL they get this ledger handle instead, typed as `Db`: Drizzle's
 * node-postgres database over the same table objects (docs/plans/postgresql.md §0, decision 2),
 * wrapped so that it behaves as SQLite's one connection does:
 *
 * - While a write or read transaction is open in this async call chain, every query built on the
 *   handle runs inside it, whether the service wrote `tx.select()` or `ctx.db.select()` (on SQLite
 *   both are the one connection; on a pool, `ctx.db` would otherwise be another connection, outside
 *   the transaction and blocked by its locks). Which transaction is current is kept in an
 *   AsyncLocalStorage, per database.
 * - A write inside a write runs in a savepoint of it, as on SQLite.
 *
 * Nothing here loads `pg`: openPgDatabase (db/pg/client.ts) does, when a postgres:// URL is opened.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Db, Tx } from "../client";
import { type PgDb, type PgOpenOptions, type PgTx, closePgDatabase, openPgDatabase } from "./client";
import { pgWriteTransaction } from "./write";

const ROOT = Symbol("proofgate.pgRoot");

interface Current {
  root: PgDb;
  tx: PgTx;
}

const current = new AsyncLocalStorage<Current>();

/** The ledger handle of a PostgreSQL database: `db` typed as the services' `Db`. */
export function ledgerOf(root: PgDb): Db {
  const handle = new Proxy(root, {
    get(target, property) {
      if (property === ROOT) return target;
      const open = current.getStore();
      const source: object = open && open.root === target && property !== "$client" ? open.tx : target;
      const value: unknown = Reflect.get(source, property, source);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(source) : value;
    },
  });
  return handle as unknown as Db;
}

/** The PostgreSQL database under a ledger handle, or undefined for a SQLite one. */
export function pgRootOf(db: object): PgDb | undefined {
  return (db as { [ROOT]?: PgDb })[ROOT];
}

/** Open a PostgreSQL database as a ledger handle (migrated unless told otherwise). */
export async function openPgLedger(url: string, options: PgOpenOptions = {}): Promise<Db> {
  return ledgerOf(await openPgDatabase(url, options));
}

/** Close a ledger handle's pool. */
export async function closePgLedger(db: Db): Promise<void> {
  const root = pgRootOf(db);
  if (root) await closePgDatabase(root);
}

/**
 * One write transaction (db/pg/write.ts: the writer lock first, READ COMMITTED, retried on
 * serialization failures); inside an open transaction of this call chain, a savepoint of it.
 */
export async function pgWrite<T>(db: Db, root: PgDb, action: (tx: Tx) => T | Promise<T>): Promise<T> {
  const open = current.getStore();
  const tx = db as unknown as Tx;
  if (open && open.root === root) return open.tx.transaction((inner) => current.run({ root, tx: inner }, async () => action(tx)));
  return pgWriteTransaction(root, (opened) => current.run({ root, tx: opened }, async () => action(tx)));
}

/**
 * Several reads on one snapshot (REPEATABLE READ, read only); inside an open transaction of this
 * call chain, simply in it.
 */
export async function pgRead<T>(db: Db, root: PgDb, action: (tx: Tx) => T | Promise<T>): Promise<T> {
  const open = current.getStore();
  const tx = db as unknown as Tx;
  if (open && open.root === root) return action(tx);
  return root.transaction((opened) => current.run({ root, tx: opened }, async () => action(tx)), {
    isolationLevel: "repeatable read",
    accessMode: "read only",
  });
}

/** Thrown inside a batch's transaction to roll it back (`PgBatch.rollback`): never seen outside. */
class BatchRolledBack extends Error {}

/**
 * An import's batch on PostgreSQL: one write transaction (the writer lock first, as every write)
 * held open across many rows, each row in a savepoint of it. SQLite's import opens `BEGIN
 * IMMEDIATE` by hand on its one connection; a pool has no such connection, so the transaction is
 * `pgWriteTransaction`'s, kept open by an action that waits until `commit()` or `rollback()`
 * settles it. It is never re-run (retries: 0): a half-run batch's rows were already reported.
 */
export class PgBatch {
  private constructor(
    private readonly root: PgDb,
    private readonly tx: PgTx,
    private readonly settle: (commit: boolean) => void,
    private readonly done: Promise<void>,
  ) {}

  /** Begin a batch: resolves once the writer lock is held. */
  static async open(db: Db): Promise<PgBatch> {
    const root = pgRootOf(db);
    if (!root) throw new Error("PgBatch: not a PostgreSQL ledger");
    let settle!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (settle = resolve));
    let opened!: (tx: PgTx) => void;
    const ready = new Promise<PgTx>((resolve) => (opened = resolve));
    const done = pgWriteTransaction(
      root,
      async (tx) => {
        opened(tx);
        if (!(await decided)) throw new BatchRolledBack();
      },
      { retries: 0 },
    ).catch((error: unknown) => {
      if (!(error instanceof BatchRolledBack)) throw error;
    });
    // A begin that fails (the lock not had within lock_timeout, the server gone) ends `done` first.
    const tx = await Promise.race([ready, done.then(() => Promise.reject(new Error("PgBatch: the transaction ended before it began")))]);
    return new PgBatch(root, tx, settle, done);
  }

  /** Run one row's `work` in a savepoint of the batch: a throw rolls back that row alone. */
  async row<T>(work: () => T | Promise<T>): Promise<T> {
    return this.tx.transaction((inner) => current.run({ root: this.root, tx: inner }, async () => work()));
  }

  /** Run `work` with the batch's transaction current (reads between rows see what it holds). */
  async read<T>(work: () => T | Promise<T>): Promise<T> {
    const open = current.getStore();
    if (open && open.root === this.root) return work();
    return current.run({ root: this.root, tx: this.tx }, async () => work());
  }

  /** Commit the batch; a failed COMMIT throws (and nothing of the batch is kept). */
  async commit(): Promise<void> {
    this.settle(true);
    await this.done;
  }

  /** Roll the batch back. */
  async rollback(): Promise<void> {
    this.settle(false);
    await this.done.catch(() => undefined);
  }
}
