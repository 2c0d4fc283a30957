/**
 * One SQLite connection serves every request of a process, and a transaction belongs to the
 * connection: while one call chain's transaction is open and awaiting, nothing of another chain
 * may run inside it (db/connection-lock.ts, writeTransaction in db/client.ts, db/query.ts).
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createMemoryDb, readTransaction, writeTransaction, writeTransactionSync } from "./client";
import { holds, mustWait } from "./connection-lock";
import { rawAll, rawRun } from "./query";
import { nextTurn, openWrite } from "@/test/support/open-write";

const ids = async (db: ReturnType<typeof createMemoryDb>) => (await rawAll<{ id: string }>(db, sql`SELECT id FROM sessions ORDER BY id`)).map((r) => r.id);

describe("the connection lock", () => {
  it("a read waits for another chain's open write, and never sees the rows it rolls back", async () => {
    const db = createMemoryDb();
    const { writing, end } = await openWrite(db, "s1", "rollback");
    const reading = ids(db);
    await nextTurn();
    end();
    await expect(writing).rejects.toThrow("rolled back");
    expect(await reading).toEqual([]);
  });

  it("a read waits for another chain's open write and sees what it committed", async () => {
    const db = createMemoryDb();
    const { writing, end } = await openWrite(db, "s1", "commit");
    const reading = ids(db);
    end();
    await writing;
    expect(await reading).toEqual(["s1"]);
  });

  it("two chains' writes run one after the other, each whole", async () => {
    const db = createMemoryDb();
    const order: string[] = [];
    const write = (id: string) =>
      writeTransaction(db, async (tx) => {
        order.push(`begin ${id}`);
        await nextTurn();
        await rawRun(tx, sql`INSERT INTO sessions (id) VALUES (${id})`);
        order.push(`end ${id}`);
      });
    await Promise.all([write("a"), write("b")]);
    expect(order).toEqual(["begin a", "end a", "begin b", "end b"]);
    expect(await ids(db)).toEqual(["a", "b"]);
  });

  it("a write inside a write is a savepoint: its refusal rolls back only its own rows", async () => {
    const db = createMemoryDb();
    await writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('outer')`);
      await expect(
        writeTransaction(db, async (inner) => {
          await rawRun(inner, sql`INSERT INTO sessions (id) VALUES ('inner')`);
          throw new Error("inner refused");
        }),
      ).rejects.toThrow("inner refused");
      await readTransaction(db, async (read) => expect(await rawAll(read, sql`SELECT id FROM sessions`)).toEqual([{ id: "outer" }]));
    });
    expect(await ids(db)).toEqual(["outer"]);
  });

  it("refuses two writes started side by side inside one transaction, and keeps nothing of it", async () => {
    const db = createMemoryDb();
    const outer = writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('outer')`);
      const side = (id: string) =>
        writeTransaction(db, async (inner) => {
          await nextTurn();
          await rawRun(inner, sql`INSERT INTO sessions (id) VALUES (${id})`);
        });
      await Promise.all([side("x"), side("y")]);
    });
    await expect(outer).rejects.toThrow("side by side");
    expect(await ids(db)).toEqual([]);
  });
});

describe("a synchronous write (writeTransactionSync)", () => {
  const insert = (db: ReturnType<typeof createMemoryDb>, id: string) => db.$client.prepare("INSERT INTO sessions (id) VALUES (?)").run(id);

  it("on a free connection commits before it returns, holding the lock for that stretch only", async () => {
    const db = createMemoryDb();
    let heldInside = false;
    const value = writeTransactionSync(db, () => {
      insert(db, "s1");
      heldInside = holds(db.$client) && !mustWait(db.$client) && db.$client.inTransaction;
      return 42;
    });
    expect(value).toBe(42);
    expect(heldInside).toBe(true);
    expect(db.$client.inTransaction).toBe(false);
    expect(holds(db.$client) || mustWait(db.$client)).toBe(false);
    expect(await ids(db)).toEqual(["s1"]);
  });

  it("waits for another chain's open write, then runs whole after it", async () => {
    const db = createMemoryDb();
    const { writing, end } = await openWrite(db, "a", "commit");
    const queued = writeTransactionSync(db, () => insert(db, "b"));
    expect(queued).toBeInstanceOf(Promise);
    expect(db.$client.prepare("SELECT id FROM sessions ORDER BY id").pluck().all()).toEqual(["a"]);
    end();
    await Promise.all([writing, queued]);
    expect(await ids(db)).toEqual(["a", "b"]);
  });

  it("is not rolled back with another chain's write it waited for", async () => {
    const db = createMemoryDb();
    const { writing, end } = await openWrite(db, "a", "rollback");
    const queued = writeTransactionSync(db, () => insert(db, "b"));
    end();
    await expect(writing).rejects.toThrow("rolled back");
    await queued;
    expect(await ids(db)).toEqual(["b"]);
  });

  it("rolls back on a throw, keeps nothing, and frees the connection", async () => {
    const db = createMemoryDb();
    expect(() =>
      writeTransactionSync(db, () => {
        insert(db, "s1");
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(db.$client.inTransaction).toBe(false);
    expect(mustWait(db.$client)).toBe(false);
    expect(await ids(db)).toEqual([]);
    expect(writeTransactionSync(db, () => insert(db, "s2").changes)).toBe(1);
    expect(await ids(db)).toEqual(["s2"]);
  });

  it("refuses an action that returns a promise, and keeps nothing of it", async () => {
    const db = createMemoryDb();
    expect(() =>
      writeTransactionSync(db, () => {
        insert(db, "s1");
        return Promise.resolve();
      }),
    ).toThrow("returned a promise");
    expect(await ids(db)).toEqual([]);
  });

  it("inside a write of the same chain is a savepoint: its throw rolls back its own rows only", async () => {
    const db = createMemoryDb();
    await writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('outer')`);
      await nextTurn();
      expect(() =>
        writeTransactionSync(db, () => {
          insert(db, "inner");
          throw new Error("inner refused");
        }),
      ).toThrow("inner refused");
      expect(writeTransactionSync(db, () => insert(db, "kept").changes)).toBe(1);
    });
    expect(await ids(db)).toEqual(["kept", "outer"]);
  });

  it("nests inside itself as a savepoint", async () => {
    const db = createMemoryDb();
    const outer = writeTransactionSync(db, () => {
      insert(db, "outer");
      expect(() =>
        writeTransactionSync(db, () => {
          insert(db, "inner");
          throw new Error("inner refused");
        }),
      ).toThrow("inner refused");
      return "committed";
    });
    expect(outer).toBe("committed");
    expect(await ids(db)).toEqual(["outer"]);
  });
});
