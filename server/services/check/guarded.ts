import { sql } from "drizzle-orm";
import { type DbOrTx, engineOf } from "@/db/client";
import { rawRun } from "@/db/query";
import type { FindingCollector } from "./findings";

/**
 * Run one check; one that cannot read the database is a finding, not a crash. On PostgreSQL a
 * failed statement ends the transaction it is in, so each check runs in a savepoint of the
 * snapshot's read transaction and a failure rolls back to it: the checks after it still read.
 */
export async function guarded(db: DbOrTx, found: FindingCollector, name: string, check: () => Promise<void>): Promise<void> {
  const postgres = engineOf(db) === "postgres";
  if (postgres) await rawRun(db, sql`SAVEPOINT proofgate_check`);
  try {
    await check();
    if (postgres) await rawRun(db, sql`RELEASE SAVEPOINT proofgate_check`);
  } catch (error) {
    if (postgres) await rawRun(db, sql`ROLLBACK TO SAVEPOINT proofgate_check`);
    found.add("database.integrity", {}, `the ${name} check could not read the database: ${error instanceof Error ? error.message : String(error)}`);
  }
}
