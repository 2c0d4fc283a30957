// The crash run's checks have teeth: a database written through the services passes them, and each
// kind of damage a crash could leave (an action stored in part, an acknowledged write missing, a gap
// or repeat in the live stream) is named. SQLite here; check.engines.test.ts runs the same cases on PostgreSQL.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "@/db/client";
import { type CheckResult, type LiveRecord, checkLive } from "./check";
import { describeDatabaseChecks } from "./check-cases";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describeDatabaseChecks("SQLite", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "proofgate-crash-check-"));
  dirs.push(dir);
  const target = path.join(dir, "proofgate.db");
  return {
    target,
    db: openDatabase(target),
    damage: async (statements) => {
      const sqlite = new Database(target);
      for (const name of sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[])
        sqlite.exec(`DROP TRIGGER "${name}"`);
      sqlite.exec(statements);
      sqlite.close();
    },
  };
});

describe("the live stream check", () => {
  const snapshot = (eventIds: number[]): CheckResult => ({ failures: [], verified: 0, actions: 0, maxEventId: eventIds.at(-1) ?? 0, eventIds });
  const delivered = (ids: number[]): LiveRecord => ({ ids, problems: [], lastId: ids.at(-1) ?? 0, waitFor: async (id) => (ids.at(-1) ?? 0) >= id });

  it("passes a stream that delivered every event once, in order, beyond the snapshot included", async () => {
    expect(await checkLive(delivered([1, 2, 3, 4, 5, 6]), snapshot([1, 2, 3, 4, 5]), 10)).toEqual([]);
  });

  it("names a gap, a duplicate and a stream that never caught up", async () => {
    expect(await checkLive(delivered([1, 2, 4, 5]), snapshot([1, 2, 3, 4, 5]), 10)).toEqual(["the live stream skipped 1 of 5 events (ids 3)"]);
    expect(await checkLive(delivered([1, 2, 9, 10]), snapshot([1, 2, 10]), 10)).toEqual(["the live stream delivered 1 events the table does not have (ids 9)"]);
    expect((await checkLive(delivered([1, 2, 2, 3]), snapshot([1, 2, 3]), 10))[0]).toBe("the live stream delivered event 2 after 2 (a duplicate)");
    expect(await checkLive(delivered([1, 2]), snapshot([1, 2, 3]), 10)).toEqual([
      "the live stream did not catch up with event 3 within 10 ms (last delivered: 2)",
    ]);
  });
});
