/**
 * The connection's statement cache: Drizzle's statements are compiled once per connection and
 * handed out in their default mode; hand-written SQL, a statement still iterating and a statement
 * a caller keeps are never shared.
 */
import { queryAll, queryRun } from "./query";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createMemoryDb } from "./client";
import { sessions } from "./schema";
import { cacheStatements, preparePrivately } from "./statement-cache";

function db(): Database.Database {
  const sqlite = new Database(":memory:");
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t (name) VALUES ('a'), ('b');");
  cacheStatements(sqlite);
  return sqlite;
}

describe("cacheStatements", () => {
  it("compiles a Drizzle statement once and hands it out in its default mode", () => {
    const sqlite = db();
    const first = sqlite.prepare('select "id", "name" from "t" where "id" = ?');
    expect(first.raw().get(1)).toEqual([1, "a"]);
    const second = sqlite.prepare('select "id", "name" from "t" where "id" = ?');
    expect(second).toBe(first);
    expect(second.get(2)).toEqual({ id: 2, name: "b" });
  });

  it("never shares hand-written SQL, nor a statement that is still iterating", () => {
    const sqlite = db();
    const kept = sqlite.prepare("SELECT name FROM t WHERE id = ?").pluck();
    expect(sqlite.prepare("SELECT name FROM t WHERE id = ?")).not.toBe(kept);
    expect(kept.get(1)).toBe("a");

    const outer = sqlite.prepare('select "id" from "t"');
    const seen: unknown[] = [];
    for (const row of outer.iterate()) {
      const inner = sqlite.prepare('select "id" from "t"');
      expect(inner).not.toBe(outer);
      seen.push(row, inner.all().length);
    }
    expect(seen).toEqual([{ id: 1 }, 2, { id: 2 }, 2]);
  });

  it("never shares a statement prepared for a caller to keep, even after the caller set its mode", () => {
    const sqlite = db();
    const kept = preparePrivately(sqlite, () => sqlite.prepare('select "name" from "t" where "id" = ?'));
    kept.pluck();
    const other = sqlite.prepare('select "name" from "t" where "id" = ?');
    expect(other).not.toBe(kept);
    expect(other.get(1)).toEqual({ name: "a" });
    expect(kept.get(2)).toBe("b");
    expect(sqlite.prepare('select "name" from "t" where "id" = ?')).toBe(other);
  });

  it("keeps working after the schema changes under a cached statement", () => {
    const sqlite = db();
    const before = sqlite.prepare('select * from "t" where "id" = ?');
    expect(before.get(1)).toEqual({ id: 1, name: "a" });
    sqlite.exec("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'");
    expect(sqlite.prepare('select * from "t" where "id" = ?').get(1)).toEqual({ id: 1, name: "a", extra: "x" });
  });

  it("is on for every connection openDatabase returns, and Drizzle's results are unchanged by it", async () => {
    const ledger = createMemoryDb();
    const sqlite = ledger.$client;
    expect(Object.hasOwn(sqlite, "prepare")).toBe(true);
    await queryRun(
      ledger.insert(sessions).values([
        { id: "s1", requirements: "one" },
        { id: "s2", requirements: "two" },
      ]),
    );
    // The same query as raw rows (select with fields), as objects (sql without fields), and again.
    const query = () => ledger.select({ id: sessions.id }).from(sessions).orderBy(sessions.id);
    expect(await queryAll(query())).toEqual([{ id: "s1" }, { id: "s2" }]);
    expect(await queryAll(query())).toEqual([{ id: "s1" }, { id: "s2" }]);
    const text = query().toSQL().sql;
    expect(sqlite.prepare(text)).toBe(sqlite.prepare(text));
    expect(sqlite.prepare(text).all()).toEqual([{ id: "s1" }, { id: "s2" }]);
    sqlite.close();
  });
});
