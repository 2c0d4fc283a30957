/**
 * One SQLite connection serves every request of a process, and a transaction belongs to the
 * connection: while one call chain's transaction is open and awaiting, nothing of another chain
 * may run inside it (db/connection-lock.ts, writeTransaction in db/client.ts, db/query.ts).
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createMemoryDb, readTransaction, writeTransaction } from "./client";
import { rawAll, rawRun } from "./query";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const ids = async (db: ReturnType<typeof createMemoryDb>) => (await rawAll<{ id: string }>(db, sql`SELECT id FROM sessions ORDER BY id`)).map((r) => r.id);

function opened(): { gate: Promise<void>; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { gate, open };
}

describe("the connection lock", () => {
  it("a read waits for another chain's open write, and never sees the rows it rolls back", async () => {
    const db = createMemoryDb();
    const { gate, open } = opened();
    const writing = writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('s1')`);
      await gate;
      throw new Error("rolled back");
    });
    await nextTurn();
    const reading = ids(db);
    await nextTurn();
    open();
    await expect(writing).rejects.toThrow("rolled back");
    expect(await reading).toEqual([]);
  });

  it("a read waits for another chain's open write and sees what it committed", async () => {
    const db = createMemoryDb();
    const { gate, open } = opened();
    const writing = writeTransaction(db, async (tx) => {
      await rawRun(tx, sql`INSERT INTO sessions (id) VALUES ('s1')`);
      await gate;
    });
    await nextTurn();
    const reading = ids(db);
    open();
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
