/**
 * Test support for running the same tests on both engines (the `pg` project): the engines to run,
 * and fresh ledgers on each — a migrated in-memory SQLite database, or a PostgreSQL database cloned
 * from the migrated template of the run's throwaway cluster (test/support/pg-cluster.ts).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, inject } from "vitest";
import { type Db, closeLedger, createMemoryDb, engineOf, openLedger, writeTransaction } from "@/db/client";
import { PG_TEMPLATE, createTestDatabase } from "./pg-cluster";
import { copyDb } from "./procedure-inputs";

export type Engine = "sqlite" | "postgres";

/** The PostgreSQL cluster's admin URL; undefined when PostgreSQL is not installed (its half is skipped). */
export const pgAdminUrl = inject("pgAdminUrl");

/** Both engines, each with whether its tests must be skipped here. */
export const ENGINES = [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !pgAdminUrl },
];

/**
 * `describe(name on <engine>)` once per engine, the PostgreSQL one skipped (hooks included) where
 * PostgreSQL is not installed. For suites with a `beforeAll` that opens the ledger: `it.skipIf`
 * alone would still run the hook.
 */
export function describeEngines(name: string, body: (engine: Engine) => void, options: { shuffle?: boolean; engines?: readonly Engine[] } = {}): void {
  const { engines, ...describeOptions } = options;
  for (const { engine, skip } of ENGINES) {
    if (engines && !engines.includes(engine)) continue;
    describe.skipIf(skip)(`${name} on ${engine}`, describeOptions, () => body(engine));
  }
}

/**
 * For the command-line suites whose PostgreSQL path is the shared service path: the service engine
 * suites (the `*.engines.test.ts` files under server/services) prove those writes on PostgreSQL, so these run
 * on SQLite alone (issue 29). The command line's own PostgreSQL code — `--database-url`, `query`,
 * `maintenance`, `copy`, `import`, progress, migrations — keeps both engines.
 */
export function describeSharedPath(name: string, body: (engine: Engine) => void, options: { shuffle?: boolean } = {}): void {
  describeEngines(name, body, { ...options, engines: ["sqlite"] });
}

/** A fresh ledger on `engine`; the PostgreSQL ones are closed after the file's tests. Call at a file's top level. */
export function ledgerFactory(): (engine: Engine) => Promise<Db> {
  const opened: Db[] = [];
  afterAll(async () => {
    for (const db of opened.splice(0)) await closeLedger(db);
  });
  return async (engine) => {
    if (engine === "sqlite") return createMemoryDb();
    const db = await openLedger(await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE }), { migrate: false, poolSize: 4 });
    opened.push(db);
    return db;
  };
}

/** A ledger and what `openLedger` opens to reach it again (a second handle, as another process would). */
export interface SharedLedger {
  db: Db;
  /** A SQLite file's path, or a PostgreSQL database's URL. */
  target: string;
}

/**
 * A fresh ledger that other handles can open too: a migrated SQLite file in a temporary folder, or
 * a PostgreSQL database cloned from the template. Closed (the folder deleted) after the file's tests.
 */
export function sharedLedgerFactory(): (engine: Engine) => Promise<SharedLedger> {
  const opened: Db[] = [];
  const folders: string[] = [];
  afterAll(async () => {
    for (const db of opened.splice(0)) await closeLedger(db);
    for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
  });
  return async (engine) => {
    let target: string;
    if (engine === "sqlite") {
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-ledger-"));
      folders.push(folder);
      target = path.join(folder, "proofgate.db");
    } else {
      target = await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE });
    }
    const db = await openLedger(target, { migrate: engine === "sqlite", poolSize: 4 });
    opened.push(db);
    return { db, target };
  };
}

/** Thrown to roll back a throwaway copy's transaction. */
class Discard extends Error {}

/**
 * Run `work` on a copy of the ledger that is thrown away afterwards, so that many cases can start
 * from one world: on SQLite an in-memory copy of the database; on PostgreSQL one transaction,
 * rolled back (a database cloned per case costs 0.3 s). Inside it every service's write is a
 * savepoint of that transaction (db/pg/ledger.ts), so a refused write still keeps nothing.
 */
export async function onThrowawayCopy<T>(db: Db, work: (copy: Db) => Promise<T>): Promise<T> {
  if (engineOf(db) === "sqlite") {
    const copy = copyDb(db);
    try {
      return await work(copy);
    } finally {
      copy.$client.close();
    }
  }
  let result: { value: T } | undefined;
  try {
    await writeTransaction(db, async () => {
      result = { value: await work(db) };
      throw new Discard("the throwaway copy is rolled back");
    });
  } catch (error) {
    if (!(error instanceof Discard)) throw error;
  }
  return result!.value;
}
