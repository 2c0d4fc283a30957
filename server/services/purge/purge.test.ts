/**
 * Retention through the one allowed path: a purge removes exactly the sessions that ended before
 * its date and every row under them — found here independently, by following every foreign key
 * and session_id column of the live schema — leaves everything else, records itself, and leaves a
 * ledger the invariant checker finds clean. Outside a purge, history cannot be deleted.
 */
// flake-risks time: a cutoff far from anything the test wrote (an hour back, a minute ahead), or one refused before the date is read
import { nextMillisecond } from "@/test/support/clock";
import path from "node:path";
import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, createMemoryDb, openDatabase } from "@/db/client";
import { APPEND_ONLY_TABLES, PURGE_ONLY_DELETE_TABLES } from "@/db/enforcement";
import { ACTORS, callerFor } from "@/test/support/api-helpers";
import { operatorActor } from "@/server/domain/actors";
import { checkLedger } from "../check/run";
import { writeFullSession } from "@/test/support/check-ledger";
import { importBazinga } from "../import/bazinga/importer";
import { copyFixture, removeTemps, tempDir } from "@/test/support/import-fixtures";
import type { ProgressUpdate } from "../progress";
import { PURGED_EVENT, type PurgeResult, purgeSessions } from "./purge";
import { NOT_PURGED, PURGE_SCOPE } from "./scope";

afterAll(removeTemps);

type Owners = Map<string, Map<number, string>>;

function tables(sqlite: Database.Database): string[] {
  return sqlite
    .prepare(
      "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name",
    )
    .pluck()
    .all() as string[];
}

/**
 * Which session every row hangs under: its own `session_id`, or the session of the row a foreign
 * key points at, followed to a fixpoint over the schema as it is (not the purge's own list).
 */
function owners(sqlite: Database.Database): Owners {
  const all = new Map(tables(sqlite).map((t) => [t, sqlite.prepare(`SELECT rowid AS __rowid, * FROM "${t}"`).all() as Record<string, unknown>[]]));
  const keys = new Map(tables(sqlite).map((t) => [t, sqlite.pragma(`foreign_key_list("${t}")`) as { table: string; from: string; to: string | null }[]]));
  const owned: Owners = new Map(tables(sqlite).map((t) => [t, new Map()]));
  for (let changed = true; changed;) {
    changed = false;
    for (const [table, rows] of all) {
      for (const row of rows) {
        const rowid = row.__rowid as number;
        if (owned.get(table)!.has(rowid)) continue;
        let session = table === "sessions" ? (row.id as string) : typeof row.session_id === "string" ? row.session_id : undefined;
        for (const fk of keys.get(table)!) {
          if (session !== undefined || row[fk.from] === null) continue;
          const parent = all.get(fk.table)!.find((p) => p[fk.to ?? "id"] === row[fk.from]);
          if (parent) session = owned.get(fk.table)!.get(parent.__rowid as number);
        }
        if (session !== undefined) {
          owned.get(table)!.set(rowid, session);
          changed = true;
        }
      }
    }
  }
  return owned;
}

function rowsOf(owned: Owners, sessions: Set<string>): Record<string, number[]> {
  return Object.fromEntries(
    [...owned].map(([table, rows]) => [
      table,
      [...rows]
        .filter(([, s]) => sessions.has(s))
        .map(([id]) => id)
        .sort((a, b) => a - b),
    ]),
  );
}

/**
 * A cutoff after everything written so far: a purge takes sessions that ended strictly before it,
 * and a session that ended in this same millisecond did not (that race made these tests flaky).
 */
const cutoffAfterNow = nextMillisecond;
const admin = (db: Db) => ({ db, actor: operatorActor("retention") });

describe("purge --before", () => {
  let db: Db;
  let sqlite: Database.Database;
  let before: Owners;
  let cutoff: Date;
  let result: PurgeResult;
  const progress: ProgressUpdate[] = [];
  let bazinga: string;
  const kept = new Set<string>();
  const purged = new Set<string>();

  beforeAll(async () => {
    const dir = tempDir();
    db = openDatabase(path.join(dir, "ledger.db"));
    sqlite = db.$client;
    bazinga = copyFixture("bazinga-v19-sample.db", dir);
    await importBazinga(db, bazinga);
    await writeFullSession(db, "old-1", { end: true });
    await writeFullSession(db, "old-2", { end: true });
    await writeFullSession(db, "running-since-before", {});
    cutoff = await nextMillisecond();
    await nextMillisecond();
    await writeFullSession(db, "recent", { end: true });
    for (const s of sqlite.prepare("SELECT id, status, ended_at FROM sessions").all() as { id: string; status: string; ended_at: number | null }[]) {
      (s.status !== "active" && s.ended_at !== null && s.ended_at < cutoff.getTime() ? purged : kept).add(s.id);
    }
    expect([...purged]).toEqual(expect.arrayContaining(["old-1", "old-2"]));
    expect([...kept]).toEqual(expect.arrayContaining(["recent", "running-since-before"]));
    expect((await checkLedger(db)).findings).toEqual([]);
    before = owners(sqlite);
    result = await purgeSessions(admin(db), { before: cutoff }, { onProgress: (update) => progress.push({ ...update }) });
  });

  it("names every table: purged under a session, or deliberately left", () => {
    const covered = [...PURGE_SCOPE.map((s) => s.table), ...NOT_PURGED].sort();
    expect(covered).toEqual(tables(sqlite));
  });

  it("removes exactly the ended sessions and every row under them, in every table, and says how many", () => {
    const gone = rowsOf(before, purged);
    const after = owners(sqlite);
    for (const { table } of PURGE_SCOPE) {
      expect(rowsOf(after, purged)[table], table).toEqual([]);
      expect(result.rows[table], table).toBe(gone[table]!.length);
    }
    expect([...result.sessions].sort()).toEqual([...purged].sort());
    // It reached rows in every kind of table a session owns.
    for (const table of [
      "task_transitions",
      "criterion_updates",
      "orchestration_logs",
      "tool_calls",
      "validation_runs",
      "merges",
      "acceptance_criteria",
      "context_package_consumers",
      "events",
    ])
      expect(result.rows[table], table).toBeGreaterThan(0);
  });

  it("reports the rows removed as it goes, from 0 to the total it counted first, which is every row that went", () => {
    const owned = rowsOf(before, purged);
    const gone = PURGE_SCOPE.reduce((n, { table }) => n + owned[table]!.length, 0);
    expect(gone).toBeGreaterThan(100);
    expect(progress[0]).toEqual({ phase: "purging", done: 0, total: gone, unit: "rows" });
    expect(progress.at(-1)).toEqual({ phase: "purging", done: gone, total: gone, unit: "rows" });
    expect(progress).toHaveLength(PURGE_SCOPE.length + 1);
    expect(progress.every((p, i) => i === 0 || p.done >= progress[i - 1]!.done)).toBe(true);
  });

  it("takes the purged sessions out of the sessions search index and keeps the others'", () => {
    expect(sqlite.prepare("SELECT id FROM sessions_search ORDER BY id").pluck().all()).toEqual([...kept].sort());
  });

  it("leaves every row of the other sessions, and the server-wide rows, as they were", async () => {
    const after = owners(sqlite);
    expect(rowsOf(after, kept)).toEqual(rowsOf(before, kept));
    expect(sqlite.prepare("SELECT id FROM sessions ORDER BY id").pluck().all()).toEqual([...kept].sort());
    // Import records outlive the purge, so importing the same file again does not bring the history back.
    expect(
      sqlite
        .prepare("SELECT count(*) FROM import_records WHERE session_id IN (SELECT value FROM json_each(?))")
        .pluck()
        .get(JSON.stringify([...purged])),
    ).toBeGreaterThan(0);
    const again = await importBazinga(db, bazinga);
    expect(again).toBeDefined();
    expect(
      sqlite
        .prepare("SELECT count(*) FROM sessions WHERE id IN (SELECT value FROM json_each(?))")
        .pluck()
        .get(JSON.stringify([...purged])),
    ).toBe(0);
  });

  it("records itself: a finished purges row with the count, and an event with every table's count", () => {
    const record = sqlite.prepare("SELECT * FROM purges").all();
    expect(record).toEqual([
      expect.objectContaining({
        id: result.purgeId,
        actor: "retention",
        before: cutoff.getTime(),
        sessions_deleted: purged.size,
        reason: `retention: sessions ended before ${cutoff.toISOString()}`,
      }),
    ]);
    expect((record[0] as { finished_at: number | null }).finished_at).not.toBeNull();
    const event = sqlite.prepare("SELECT * FROM events WHERE type = ?").get(PURGED_EVENT) as { entity: string; entity_id: string; actor: string; data: string };
    expect(event).toMatchObject({ entity: "purge", entity_id: String(result.purgeId), actor: "retention" });
    expect(JSON.parse(event.data)).toMatchObject({ rows: result.rows, sessions: result.sessions });
  });

  it("leaves a ledger the invariant checker finds clean", async () => {
    const report = await checkLedger(db);
    expect(report.findings).toEqual([]);
    expect(report.checked.tasks).toBeGreaterThan(0);
  });

  it("never purges an active session, whatever the date", async () => {
    const now = await purgeSessions(admin(db), { before: await nextMillisecond(), dryRun: true });
    expect(now.sessions).not.toContain("running-since-before");
    expect(now.sessions).toContain("recent");
  });
});

describe("purge, refused or dry", () => {
  it("a dry run counts what would go and changes nothing", async () => {
    const db = createMemoryDb();
    await writeFullSession(db, "old", { end: true });
    const snapshot = () => tables(db.$client).map((t) => [t, db.$client.prepare(`SELECT count(*) FROM "${t}"`).pluck().get()]);
    const counts = snapshot();
    const before = await cutoffAfterNow();
    const dry = await purgeSessions(admin(db), { before, dryRun: true });
    expect(dry).toMatchObject({ purgeId: null, dryRun: true, sessions: ["old"] });
    expect(snapshot()).toEqual(counts);
    const real = await purgeSessions(admin(db), { before });
    expect(real.rows).toEqual(dry.rows);
  });

  it("is all or nothing: a row outside the purge that refers into it stops the purge, and nothing is removed", async () => {
    const db = createMemoryDb();
    await writeFullSession(db, "old", { end: true });
    await callerFor(db, ACTORS.orchestrator).session.create({ id: "keeps-a-link" });
    const branch = db.$client.prepare("SELECT id FROM branches WHERE session_id = 'old' LIMIT 1").pluck().get() as number;
    db.$client.prepare("INSERT INTO branches (session_id, name, parent_branch_id) VALUES ('keeps-a-link', 'fork', ?)").run(branch);
    const total = () =>
      db.$client
        .prepare("SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM events) + (SELECT count(*) FROM tasks) + (SELECT count(*) FROM purges)")
        .pluck()
        .get();
    const counted = total();
    const before = await cutoffAfterNow();
    await expect(purgeSessions(admin(db), { before })).rejects.toThrow(
      /^rows outside the purged sessions refer to rows under them \(branches row \d+ → branches\); nothing was purged$/,
    );
    expect(total()).toBe(counted);
  });

  it("refuses a date in the future, and anyone but an admin", async () => {
    const db = createMemoryDb();
    await expect(purgeSessions(admin(db), { before: new Date(Date.now() + 60_000) })).rejects.toThrow("before: must not be in the future");
    await expect(purgeSessions({ db, actor: ACTORS.lead }, { before: new Date() })).rejects.toThrow("role lead may not purge sessions (allowed: admin)");
  });

  it("refuses a reason no text may hold (NUL, a lone surrogate), naming it, even on a dry run", async () => {
    const db = createMemoryDb();
    await expect(purgeSessions(admin(db), { before: new Date(), dryRun: true, reason: "a\u0000b" })).rejects.toThrow("reason: must not contain NUL characters");
    await expect(purgeSessions(admin(db), { before: new Date(), dryRun: true, reason: "\uD800" })).rejects.toThrow(
      "reason: must be valid Unicode (no lone surrogate halves)",
    );
  });

  it("outside a purge, every history and ledger table refuses DELETE, and a purge record cannot be reopened or removed", async () => {
    const db = createMemoryDb();
    await writeFullSession(db, "s", { end: true });
    await purgeSessions(admin(db), { before: new Date(Date.now() - 3_600_000) });
    await writeFullSession(db, "t", { end: true });
    await purgeSessions(admin(db), { before: await cutoffAfterNow() });
    await writeFullSession(db, "u");
    for (const table of [...APPEND_ONLY_TABLES, ...PURGE_ONLY_DELETE_TABLES]) {
      const n = db.$client.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
      expect(n, table).toBeGreaterThan(0);
      expect(() => db.$client.prepare(`DELETE FROM ${table}`).run(), table).toThrow(/^(append_only|purge_only|goal_contract\.immutable): /);
      expect(db.$client.prepare(`SELECT count(*) FROM ${table}`).pluck().get(), table).toBe(n);
    }
    expect(() => db.$client.prepare("UPDATE purges SET finished_at = NULL").run()).toThrow(/^append_only: a purge record can only be marked finished, once/);
    expect(() => db.$client.prepare("DELETE FROM purges").run()).toThrow(/^append_only: purge records are never deleted/);
  });
});
