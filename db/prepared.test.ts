/**
 * `prepared`: one statement per connection and name, whether it is asked for on the database or
 * on a transaction handle, and it runs inside the caller's transaction.
 */
import { nextMillisecond } from "@/test/support/clock";
import { queryAll, queryRun } from "./query";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createMemoryDb, writeTransaction } from "./client";
import { insertReturning, prepared } from "./prepared";
import { sessions } from "./schema";

const byId = (db: Parameters<typeof prepared>[0]) =>
  prepared(db, "test.session_by_id", () =>
    db
      .select({ id: sessions.id, requirements: sessions.requirements })
      .from(sessions)
      .where(eq(sessions.id, sql.placeholder("id")))
      .prepare(),
  );

describe("prepared", () => {
  it("keeps one statement per connection, asked for on the database or inside a transaction", async () => {
    const db = createMemoryDb();
    const outside = byId(db);
    expect(db.transaction((tx) => byId(tx))).toBe(outside);
    expect(await writeTransaction(db, (tx) => byId(tx))).toBe(outside);
    expect(byId(createMemoryDb())).not.toBe(outside);
  });

  it("built inside a transaction, it sees that transaction's writes, and a rollback's are gone after", async () => {
    const db = createMemoryDb();
    await expect(
      writeTransaction(db, async (tx) => {
        await queryRun(tx.insert(sessions).values({ id: "s1", requirements: "one" }));
        expect(await byId(tx).get({ id: "s1" })).toEqual({ id: "s1", requirements: "one" });
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await byId(db).get({ id: "s1" })).toBeUndefined();
    await queryRun(db.insert(sessions).values({ id: "s2", requirements: "two" }));
    expect(await byId(db).get({ id: "s2" })).toEqual({ id: "s2", requirements: "two" });
  });
});

describe("insertReturning", () => {
  it("inserts the columns given, the schema's defaults (evaluated at each run) for the rest, and returns the row", async () => {
    const db = createMemoryDb();
    const first = (await insertReturning(db, "test.session", sessions, { id: "s1", requirements: "one" }))!;
    expect(first).toMatchObject({ id: "s1", requirements: "one", status: "active", source: "api", enforcement: "enforce", tasksTotal: 0 });
    await nextMillisecond();
    const second = (await insertReturning(db, "test.session", sessions, { id: "s2", requirements: "two" }))!;
    expect(second.startedAt.getTime()).toBeGreaterThan(first.startedAt.getTime());
    // Another set of columns is another statement; a value given wins over the default.
    expect(await insertReturning(db, "test.session", sessions, { id: "s3", requirements: "three", source: "demo" })).toMatchObject({ source: "demo" });
    expect(await queryAll(db.select({ id: sessions.id }).from(sessions))).toHaveLength(3);
  });

  it("with onConflictDoNothing, a row that is there already is left alone and undefined returned", async () => {
    const db = createMemoryDb();
    await insertReturning(db, "test.session", sessions, { id: "s1", requirements: "one" }, { onConflictDoNothing: true });
    expect(await insertReturning(db, "test.session", sessions, { id: "s1", requirements: "changed" }, { onConflictDoNothing: true })).toBeUndefined();
    await expect(insertReturning(db, "test.session", sessions, { id: "s1", requirements: "changed" })).rejects.toThrow(/UNIQUE/);
    expect(await queryAll(db.select({ requirements: sessions.requirements }).from(sessions))).toEqual([{ requirements: "one" }]);
  });
});
