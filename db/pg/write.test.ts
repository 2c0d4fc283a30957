// flake-risks wait: yields inside read-then-write so that, without the lock, writers would interleave; with it the result is the same whatever the timing
import { and, eq, sql } from "drizzle-orm";
import { bigint, integer, pgTable, text } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { ConflictError } from "@/server/domain/errors";
import { createTestDatabase } from "@/test/support/pg-cluster";
import { closePgDatabase, openPgDatabase, type PgDb, type PgDbOrTx } from "./client";
import { DatabaseBusyError, toDomainError } from "./errors";
import { pgWriteTransaction, WRITE_RETRIES } from "./write";

const adminUrl = inject("pgAdminUrl");

const items = pgTable("items", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  version: integer("version").notNull(),
  state: text("state").notNull(),
});
const notes = pgTable("notes", {
  id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
  body: text("body").notNull(),
});

/** The services' compare-and-set (task/statements.ts), PG-flavoured: 0 rows updated → the caller lost the race. */
async function compareAndSet(tx: PgDbOrTx, id: number, expectedVersion: number, state: string) {
  const rows = await tx
    .update(items)
    .set({ version: expectedVersion + 1, state })
    .where(and(eq(items.id, id), eq(items.version, expectedVersion)))
    .returning();
  if (rows.length === 0) throw new ConflictError("task.version_conflict", `item ${id} changed since version ${expectedVersion}`);
  return rows;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!adminUrl)("pgWriteTransaction (PostgreSQL)", () => {
  let url: string;
  let a: PgDb;
  let b: PgDb;
  let admin: PgDb;
  beforeAll(async () => {
    url = await createTestDatabase(adminUrl!);
    const open = (n: number) => openPgDatabase(url, { migrate: false, max: 4, applicationName: `client-${n}` });
    [a, b, admin] = await Promise.all([open(1), open(2), open(3)]);
    await admin.execute(sql`CREATE TABLE items (id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, version integer NOT NULL, state text NOT NULL)`);
    await admin.execute(sql`CREATE TABLE notes (id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, body text NOT NULL)`);
  });
  afterAll(async () => {
    await Promise.all([a, b, admin].filter(Boolean).map(closePgDatabase));
  });
  let itemId: number;
  beforeEach(async () => {
    await admin.execute(sql`TRUNCATE items, notes`);
    const [row] = await admin.insert(items).values({ version: 1, state: "pending" }).returning();
    itemId = row!.id;
  });

  it("two connections racing a compare-and-set: one wins, the other waits for the writer lock and updates 0 rows (conflict)", async () => {
    let aHoldsLock!: () => void;
    const aInside = new Promise<void>((resolve) => (aHoldsLock = resolve));
    let letAGo!: () => void;
    const released = new Promise<void>((resolve) => (letAGo = resolve));
    const first = pgWriteTransaction(a, async (tx) => {
      const rows = await compareAndSet(tx, itemId, 1, "claimed by a");
      aHoldsLock();
      // Still inside the transaction, holding the lock, until b is seen waiting (not for a fixed time b might miss on a slow machine).
      await released;
      return rows;
    });
    await aInside;
    const second = pgWriteTransaction(b, (tx) => compareAndSet(tx, itemId, 1, "claimed by b"));

    // While a is inside, b waits on the writer lock (an advisory lock not granted), not on the row.
    try {
      await expect
        .poll(async () => (await admin.execute(sql`select count(*) as n from pg_locks where locktype = 'advisory' and not granted`)).rows[0]!.n, {
          timeout: 15_000,
          interval: 20,
        })
        .toBe(1);
    } finally {
      letAGo();
    }

    const [won, lost] = await Promise.allSettled([first, second]);
    expect(won.status).toBe("fulfilled");
    expect(won.status === "fulfilled" && won.value).toEqual([{ id: itemId, version: 2, state: "claimed by a" }]);
    expect(lost.status === "rejected" && lost.reason).toBeInstanceOf(ConflictError);
    expect(await admin.select().from(items)).toEqual([{ id: itemId, version: 2, state: "claimed by a" }]);
  });

  it("started together, again and again: always exactly one winner", async () => {
    for (let round = 1; round <= 10; round++) {
      const results = await Promise.allSettled([
        pgWriteTransaction(a, (tx) => compareAndSet(tx, itemId, round, "a")),
        pgWriteTransaction(b, (tx) => compareAndSet(tx, itemId, round, "b")),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const loser = results.find((r) => r.status === "rejected");
      expect(loser?.reason).toBeInstanceOf(ConflictError);
    }
    expect((await admin.select().from(items))[0]!.version).toBe(11);
  });

  it("writers run one at a time across connections: read-then-write increments lose nothing", async () => {
    // Read the version, yield, write version + 1: without the writer lock, READ COMMITTED lets two
    // writers read the same version and both write the same next one (a lost update).
    const bump = (db: PgDb) =>
      pgWriteTransaction(db, async (tx) => {
        const [row] = await tx.select().from(items).where(eq(items.id, itemId));
        await sleep(2);
        await tx
          .update(items)
          .set({ version: row!.version + 1 })
          .where(eq(items.id, itemId));
      });
    await Promise.all(Array.from({ length: 12 }, (_, i) => bump(i % 2 === 0 ? a : b)));
    expect((await admin.select().from(items))[0]!.version).toBe(13);
  });

  it("a throw rolls back everything the action wrote, and releases the lock", async () => {
    const failure = new Error("the action changed its mind");
    await expect(
      pgWriteTransaction(a, async (tx) => {
        await tx.insert(notes).values({ body: "written, then rolled back" });
        await compareAndSet(tx, itemId, 1, "changed, then rolled back");
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await admin.select().from(notes)).toEqual([]);
    expect((await admin.select().from(items))[0]).toMatchObject({ version: 1, state: "pending" });
    // The lock went with the rollback: another connection writes at once.
    await pgWriteTransaction(b, (tx) => compareAndSet(tx, itemId, 1, "b"));
    expect((await admin.select().from(items))[0]).toMatchObject({ version: 2, state: "b" });
  });

  for (const [sqlState, name] of [
    ["40001", "serialization_failure"],
    ["40P01", "deadlock_detected"],
  ] as const) {
    it(`re-runs the whole action after ${sqlState} (${name}); only the last run's writes stay`, async () => {
      let runs = 0;
      const result = await pgWriteTransaction(a, async (tx) => {
        runs += 1;
        await tx.insert(notes).values({ body: `run ${runs}` });
        if (runs < 3) await tx.execute(sql.raw(`DO $$ BEGIN RAISE EXCEPTION 'run failed' USING ERRCODE = '${name}'; END $$`));
        return runs;
      });
      expect(result).toBe(3);
      expect((await admin.select().from(notes)).map((n) => n.body)).toEqual(["run 3"]);
    });
  }

  it(`gives up after ${WRITE_RETRIES} re-runs: the error becomes "database busy"`, async () => {
    let runs = 0;
    const error = await pgWriteTransaction(a, async (tx) => {
      runs += 1;
      await tx.execute(sql`DO $$ BEGIN RAISE EXCEPTION 'always' USING ERRCODE = 'serialization_failure'; END $$`);
    }).catch((e: unknown) => e);
    expect(runs).toBe(WRITE_RETRIES + 1);
    expect(toDomainError(error)).toBeInstanceOf(DatabaseBusyError);
    expect((toDomainError(error) as DatabaseBusyError).sqlState).toBe("40001");
  });

  it("does not re-run other failures", async () => {
    let runs = 0;
    await expect(
      pgWriteTransaction(a, async (tx) => {
        runs += 1;
        await tx.execute(sql`select 1/0`);
      }),
    ).rejects.toThrow();
    expect(runs).toBe(1);
  });

  it("inside a write, a write is a savepoint: its throw undoes only its own rows", async () => {
    await pgWriteTransaction(a, async (tx) => {
      await tx.insert(notes).values({ body: "outer" });
      await pgWriteTransaction(tx, async (inner) => {
        await inner.insert(notes).values({ body: "inner" });
        throw new Error("inner fails");
      }).catch(() => undefined);
      await pgWriteTransaction(tx, (inner) => inner.insert(notes).values({ body: "inner kept" }));
    });
    expect((await admin.select().from(notes)).map((n) => n.body).sort()).toEqual(["inner kept", "outer"]);
  });
});
