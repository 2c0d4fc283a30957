/**
 * The import's statement cache: Drizzle's statements are compiled once per run and handed out in
 * their default mode; hand-written SQL and a statement still iterating are never shared; the
 * connection's own `prepare` is back afterwards, whatever happened.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { withStatementCache } from "./statement-cache";

function db(): Database.Database {
  const sqlite = new Database(":memory:");
  sqlite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t (name) VALUES ('a'), ('b');");
  return sqlite;
}

describe("withStatementCache", () => {
  it("compiles a Drizzle statement once per run and hands it out in its default mode", () => {
    const sqlite = db();
    withStatementCache(sqlite, () => {
      const first = sqlite.prepare('select "id", "name" from "t" where "id" = ?');
      expect(first.raw().get(1)).toEqual([1, "a"]);
      const second = sqlite.prepare('select "id", "name" from "t" where "id" = ?');
      expect(second).toBe(first);
      expect(second.get(2)).toEqual({ id: 2, name: "b" });
    });
  });

  it("never shares hand-written SQL, nor a statement that is still iterating", () => {
    const sqlite = db();
    withStatementCache(sqlite, () => {
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
  });

  it("gives the connection its own prepare back when the work returns or throws", () => {
    const sqlite = db();
    const own = Database.prototype.prepare;
    withStatementCache(sqlite, () => undefined);
    expect(sqlite.prepare).toBe(own);
    expect(() =>
      withStatementCache(sqlite, () => {
        throw new Error("failed half-way");
      }),
    ).toThrow("failed half-way");
    expect(sqlite.prepare).toBe(own);
    expect(Object.hasOwn(sqlite, "prepare")).toBe(false);
    const a = sqlite.prepare('select "id" from "t"');
    expect(sqlite.prepare('select "id" from "t"')).not.toBe(a);
  });
});
