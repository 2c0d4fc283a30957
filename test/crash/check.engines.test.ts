// The crash run's checks on PostgreSQL (the `pg` project's throwaway cluster): the same cases as on
// SQLite (check-cases.ts), and what stands in for integrity_check there — the enforcement triggers
// in place, and no session of a killed server left holding the writer lock.
// flake-risks time: leftoverSessions waits up to the ms given: the first session is held open by the test itself, so it is there whatever the wait; the second was closed by the test and is awaited for up to 5 s
import { afterAll, expect, it } from "vitest";
import { openLedger } from "@/db/client";
import { WRITER_LOCK } from "@/db/pg/write";
import { PG_TEMPLATE, createTestDatabase } from "@/test/support/pg-cluster";
import { pgAdminUrl } from "@/test/support/engines";
import { checkDatabase } from "./check";
import { SESSION, describeDatabaseChecks } from "./check-cases";
import { leftoverSessions } from "./databases";
import { Ledger } from "./ledger";
import { connectPg } from "./snapshot";

const skip = !pgAdminUrl;
const opened: { end(): Promise<void> }[] = [];
afterAll(async () => {
  for (const client of opened.splice(0)) await client.end();
});

/** A database cloned from the migrated template, with amcheck (as the crash run's has). */
async function freshDatabase(): Promise<string> {
  const target = await createTestDatabase(pgAdminUrl!, undefined, { template: PG_TEMPLATE });
  const admin = await connectPg(target);
  await admin.query("CREATE EXTENSION amcheck");
  await admin.end();
  return target;
}

/** Statements run as a broken write path would: the session's triggers (the append-only ones, the foreign keys') switched off. */
async function damage(target: string, statements: string): Promise<void> {
  const client = await connectPg(target);
  try {
    await client.query(`SET session_replication_role = replica; ${statements}`);
  } finally {
    await client.end();
  }
}

describeDatabaseChecks(
  "PostgreSQL",
  async () => {
    const target = await freshDatabase();
    return { target, db: await openLedger(target, { migrate: false, poolSize: 2 }), damage: (statements) => damage(target, statements) };
  },
  { skip },
);

it.skipIf(skip)("names an enforcement trigger dropped or disabled", async () => {
  const target = await freshDatabase();
  await damage(target, "DROP TRIGGER tasks_no_delete ON tasks; ALTER TABLE events DISABLE TRIGGER events_no_update");
  const failures = (await checkDatabase(target, SESSION, new Ledger(), 0)).failures;
  expect(failures).toContain("1 enforcement triggers missing: tasks_no_delete");
  expect(failures).toContain("1 enforcement triggers disabled: events_no_update");
});

it.skipIf(skip)("names a Proofgate session older than the running server that still holds the writer lock", async () => {
  const target = await freshDatabase();
  const pg = (await import("pg")).default;
  const stale = new pg.Client({ connectionString: target, application_name: "proofgate" });
  await stale.connect();
  opened.push(stale);
  await stale.query("BEGIN");
  await stale.query("SELECT pg_advisory_xact_lock(hashtext($1))", [WRITER_LOCK]);
  const [left] = await leftoverSessions(target, Date.now() + 1000, 300);
  expect(left).toMatch(
    /a PostgreSQL session of a killed server \(pid \d+\) is still there 300 ms after the restart: idle in transaction, holding 1 advisory locks: SELECT pg_advisory_xact_lock/,
  );
  // Its connection closed (as PostgreSQL sees a killed server's), the session goes, and the lock with it.
  await stale.end();
  opened.splice(opened.indexOf(stale), 1);
  expect(await leftoverSessions(target, Date.now() + 1000, 5000)).toEqual([]);
});
