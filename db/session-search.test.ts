import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sessionSearchMigrationSql } from "./session-search";
import { addSession, freshSqlite, type Sqlite } from "@/test/support/db-fixtures";

const indexed = (sqlite: Sqlite) => sqlite.prepare("SELECT id, requirements FROM sessions_search ORDER BY id").all();
const matching = (sqlite: Sqlite, text: string) =>
  sqlite.prepare("SELECT id FROM sessions_search WHERE sessions_search MATCH ? ORDER BY id").pluck().all(`"${text}"`);

describe("the sessions search index (migration 0006)", () => {
  it("is the committed migration, as db/session-search.ts generates it", () => {
    const committed = fs.readFileSync(path.join(import.meta.dirname, "migrations", "0006_session_search.sql"), "utf8");
    expect(committed).toBe(`${sessionSearchMigrationSql()}\n`);
  });

  it("holds every session's id and requirements as they are written, long ids and short ones", () => {
    const sqlite = freshSqlite();
    addSession(sqlite, "sess-long-id");
    addSession(sqlite, "s2");
    sqlite.prepare("UPDATE sessions SET requirements = ? WHERE id = ?").run("Make the upload retry idempotent", "sess-long-id");
    sqlite.prepare("UPDATE sessions SET requirements = ? WHERE id = ?").run("Rotate keys", "s2");
    expect(indexed(sqlite)).toEqual([
      { id: "s2", requirements: "Rotate keys" },
      { id: "sess-long-id", requirements: "Make the upload retry idempotent" },
    ]);
    expect(matching(sqlite, "UPLOAD RETRY")).toEqual(["sess-long-id"]);
    expect(matching(sqlite, "long-i")).toEqual(["sess-long-id"]);
  });

  it("drops a purged session's row, and only its row", () => {
    const sqlite = freshSqlite();
    for (const id of ["old-session", "o1", "kept-session", "k1"]) addSession(sqlite, id);
    sqlite.prepare("INSERT INTO purges (actor, reason) VALUES ('admin', 'retention')").run();
    sqlite.prepare("DELETE FROM sessions WHERE id IN ('old-session', 'o1')").run();
    expect(indexed(sqlite).map((r) => (r as { id: string }).id)).toEqual(["k1", "kept-session"]);
  });

  it("indexes the sessions a database already had when it is migrated", () => {
    const sqlite = freshSqlite();
    addSession(sqlite, "before-0006");
    sqlite.exec("DROP TABLE sessions_search");
    for (const statement of sessionSearchMigrationSql().split("--> statement-breakpoint").slice(1, 3)) sqlite.exec(statement);
    expect(matching(sqlite, "before-0")).toEqual(["before-0006"]);
  });
});
