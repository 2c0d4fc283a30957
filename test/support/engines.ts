/**
 * Test support for running the same tests on both engines (the `pg` project): the engines to run,
 * and fresh ledgers on each — a migrated in-memory SQLite database, or a PostgreSQL database cloned
 * from the migrated template of the run's throwaway cluster (test/support/pg-cluster.ts).
 */
import { afterAll, inject } from "vitest";
import { type Db, closeLedger, createMemoryDb, openLedger } from "@/db/client";
import { PG_TEMPLATE, createTestDatabase } from "./pg-cluster";

export type Engine = "sqlite" | "postgres";

/** The PostgreSQL cluster's admin URL; undefined when PostgreSQL is not installed (its half is skipped). */
export const pgAdminUrl = inject("pgAdminUrl");

/** Both engines, each with whether its tests must be skipped here. */
export const ENGINES = [
  { engine: "sqlite" as const, skip: false },
  { engine: "postgres" as const, skip: !pgAdminUrl },
];

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
