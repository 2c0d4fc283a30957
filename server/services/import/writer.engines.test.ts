/**
 * The import's batches (writer.ts) on both engines: one write transaction per batch, each row in a
 * savepoint of it, its import records written and forgotten with it. On PostgreSQL the batch is a
 * `PgBatch` (db/pg/ledger.ts) holding the writer lock until it commits.
 */
// flake-risks time: the time a row is booked; nothing reads it back as a time
// flake-risks wait: the poll interval of a loop that awaits a condition
import { type SQL, sql } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { type Db, closeLedger, openLedger, withConnection, writeTransaction } from "@/db/client";
import { rawRun } from "@/db/query";
import { type Engine, describeEngines, pgAdminUrl, sharedLedgerFactory } from "@/test/support/engines";
import { copyFixture, freshLedger, ledgerCount, removeTemps } from "@/test/support/import-fixtures";
import { rowsOf } from "@/test/support/rows";
import { importBazinga } from "./bazinga/importer";
import { RecordBook } from "./records";
import { ImportWriter } from "./writer";

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });
afterAll(removeTemps);

const sharedLedger = sharedLedgerFactory();
const tick = () => new Promise((resolve) => setImmediate(resolve));
const countOn = async (db: Db, query: SQL) => Number((await rowsOf<{ n: number }>(db, query))[0]!.n);
const sessionsNamed = (...ids: string[]) =>
  sql`select count(*) as n from sessions where id in (${sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  )})`;
const recordsKeyed = (key: string) => sql`select count(*) as n from import_records where source_key = ${key}`;
const insertSession = (db: Db, id: string) => rawRun(db, sql`insert into sessions (id, source) values (${id}, 'api')`);

/** A row whose write is refused only at COMMIT: SQLite's deferred foreign keys (on a table of its own: the ledger's have triggers); on PostgreSQL a deferred constraint trigger (the schema defers none). */
async function armCommitFailure(db: Db, engine: Engine): Promise<(db: Db) => Promise<unknown>> {
  if (engine === "sqlite") {
    await rawRun(db, sql`create table test_refuse_at_commit (session_id text references sessions (id))`);
    return async (inBatch) => {
      await rawRun(inBatch, sql`pragma defer_foreign_keys = on`);
      await rawRun(inBatch, sql`insert into test_refuse_at_commit values ('nowhere')`);
    };
  }
  await rawRun(
    db,
    sql.raw(`create function test_refuse_at_commit() returns trigger language plpgsql as $$
      begin if new.id = 'doomed' then raise exception 'refused at commit'; end if; return null; end $$`),
  );
  await rawRun(
    db,
    sql.raw(`create constraint trigger test_refuse_at_commit after insert on sessions deferrable initially deferred
      for each row execute function test_refuse_at_commit()`),
  );
  return (inBatch) => insertSession(inBatch, "doomed");
}

/**
 * These tests look inside a batch while it is open: it commits by itself only when flushed, never
 * because a stall of a loaded machine passed the one second an import's batch lasts.
 */
const HELD_OPEN = { rows: Number.POSITIVE_INFINITY, ms: Number.POSITIVE_INFINITY };

describeEngines("the import's batches", (engine) => {
  it("rolls back a refused row alone, with its import record, even when it refuses after an await", async () => {
    const { db } = await sharedLedger(engine);
    await withConnection(db, async () => {
      const book = await RecordBook.open(db, "bazinga");
      const writer = new ImportWriter(db, book, HELD_OPEN);
      await writer.row(async () => {
        await tick();
        await insertSession(db, "kept");
        await book.put("session", "kept", { targetId: "kept", sessionId: "kept" }, new Date());
      });
      const refused = writer.row(async () => {
        await insertSession(db, "refused");
        await book.put("session", "refused", { targetId: "refused", sessionId: "refused" }, new Date());
        await tick();
        // A service's own transaction nests in the row's savepoint.
        await writeTransaction(db, () => insertSession(db, "nested"));
        await tick();
        throw new Error("refused after its writes");
      });
      await expect(refused).rejects.toThrow("refused after its writes");
      expect(await book.get("session", "refused")).toBeUndefined();
      expect(await book.get("session", "kept")).toMatchObject({ targetId: "kept" });
      await writer.flush();
    });
    expect(await countOn(db, sessionsNamed("kept", "refused", "nested"))).toBe(1);
    expect(await countOn(db, recordsKeyed("kept"))).toBe(1);
    expect(await countOn(db, recordsKeyed("refused"))).toBe(0);
  });

  it("forgets the batch's records when its commit fails, and keeps none of its rows", async () => {
    const { db } = await sharedLedger(engine);
    const doom = await armCommitFailure(db, engine);
    await withConnection(db, async () => {
      const book = await RecordBook.open(db, "bazinga");
      const lazy = RecordBook.indexOnly(db, "shots-on-goal");
      const writer = new ImportWriter(db, book, HELD_OPEN);
      await writer.row(async () => {
        await insertSession(db, "first");
        await book.put("session", "first", { targetId: "first", sessionId: "first" }, new Date());
        await lazy.put("sog_session", "first", { targetId: "first", sessionId: "first" }, new Date());
      });
      await writer.row(async () => doom(db));
      await expect(writer.flush()).rejects.toThrow();
      expect(await book.get("session", "first")).toBeUndefined();
      expect(await lazy.get("sog_session", "first")).toBeUndefined();
      // The next batch starts afresh.
      await writer.row(async () => {
        await insertSession(db, "after");
        await book.put("session", "after", { targetId: "after", sessionId: "after" }, new Date());
      });
      await writer.flush();
    });
    expect(await countOn(db, sessionsNamed("first", "doomed", "after"))).toBe(1);
    expect(await countOn(db, sql`select count(*) as n from import_records`)).toBe(1);
  });

  it("shows another connection nothing of a batch until it is flushed", async () => {
    const { db, target } = await sharedLedger(engine);
    const other = await openLedger(target, { migrate: false });
    try {
      await withConnection(db, async () => {
        const book = await RecordBook.open(db, "bazinga");
        const writer = new ImportWriter(db, book, HELD_OPEN);
        await writer.row(async () => {
          await insertSession(db, "pending");
          await book.put("session", "pending", { targetId: "pending", sessionId: "pending" }, new Date());
        });
        // Between rows the importer's own lookups see what the open batch holds.
        expect(await book.get("session", "pending")).toMatchObject({ targetId: "pending" });
        expect(await countOn(other, sessionsNamed("pending"))).toBe(0);
        expect(await countOn(other, recordsKeyed("pending"))).toBe(0);
        await writer.flush();
      });
      expect(await countOn(other, sessionsNamed("pending"))).toBe(1);
      expect(await countOn(other, recordsKeyed("pending"))).toBe(1);
    } finally {
      await closeLedger(other);
    }
  });

  it("commits a batch by itself once it holds its rows or has been open its time", async () => {
    const { db, target } = await sharedLedger(engine);
    const other = await openLedger(target, { migrate: false });
    try {
      await withConnection(db, async () => {
        const book = await RecordBook.open(db, "bazinga");
        const byRows = new ImportWriter(db, book, { rows: 2, ms: Number.POSITIVE_INFINITY });
        await byRows.row(() => insertSession(db, "row-1"));
        expect(await countOn(other, sessionsNamed("row-1"))).toBe(0);
        await byRows.row(() => insertSession(db, "row-2"));
        expect(await countOn(other, sessionsNamed("row-1", "row-2"))).toBe(2);
        const byTime = new ImportWriter(db, book, { rows: Number.POSITIVE_INFINITY, ms: 0 });
        await byTime.row(() => insertSession(db, "timed"));
        expect(await countOn(other, sessionsNamed("timed"))).toBe(1);
      });
    } finally {
      await closeLedger(other);
    }
  });

  it("keeps nothing of an aborted batch", async () => {
    const { db } = await sharedLedger(engine);
    await withConnection(db, async () => {
      const book = await RecordBook.open(db, "bazinga");
      const lazy = RecordBook.indexOnly(db, "shots-on-goal");
      const writer = new ImportWriter(db, book, HELD_OPEN);
      for (const id of ["a", "b"]) {
        await writer.row(async () => {
          await insertSession(db, id);
          await book.put("session", id, { targetId: id, sessionId: id }, new Date());
          await lazy.put("sog_session", id, { targetId: id, sessionId: id }, new Date());
        });
      }
      await writer.abort();
      expect(await book.get("session", "a")).toBeUndefined();
      expect(await lazy.get("sog_session", "b")).toBeUndefined();
    });
    expect(await countOn(db, sessionsNamed("a", "b"))).toBe(0);
    expect(await countOn(db, sql`select count(*) as n from import_records`)).toBe(0);
  });
});

describe.skipIf(!pgAdminUrl)("the import's batch on PostgreSQL", () => {
  const engine = "postgres";
  it("makes a service write through another handle wait until the batch is flushed, then lets it stand", async () => {
    const { db, target } = await sharedLedger(engine);
    const other = await openLedger(target, { migrate: false });
    try {
      const book = await RecordBook.open(db, "bazinga");
      const writer = new ImportWriter(db, book, HELD_OPEN);
      await writer.row(() => insertSession(db, "imported"));
      let settled = false;
      const write = writeTransaction(other, () => insertSession(other, "elsewhere")).finally(() => (settled = true));
      // The other write waits on the writer lock (an advisory lock not granted), not on anything else.
      const waiting = async () =>
        countOn(
          db,
          sql`select count(*) as n from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
        );
      while ((await waiting()) !== 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
      expect(await countOn(other, sessionsNamed("imported", "elsewhere"))).toBe(0);
      await writer.flush();
      await write;
      expect(await countOn(other, sessionsNamed("imported", "elsewhere"))).toBe(2);
    } finally {
      await closeLedger(other);
    }
  });
});

describe("the import's batches on SQLite's one connection", () => {
  it("opens no batch unless the connection is held", async () => {
    const { db } = freshLedger();
    const writer = new ImportWriter(db, await RecordBook.open(db, "bazinga"));
    await expect(writer.row(() => "work")).rejects.toThrow(/hold the connection/);
    expect(db.$client.inTransaction).toBe(false);
    db.$client.close();
  });

  it("keeps another caller's write out of an import's batch: it waits for the import, then stands on its own", async () => {
    const source = copyFixture("bazinga-v19-sample.db");
    const { db } = freshLedger();
    const bazingaSessions = () => db.$client.prepare("SELECT count(*) FROM sessions WHERE source = 'bazinga'").pluck().get() as number;
    const importing = importBazinga(db, source);
    let seen = -1;
    const other = writeTransaction(db, () => {
      seen = bazingaSessions();
      db.$client.prepare("INSERT INTO sessions (id, source) VALUES ('elsewhere', 'api')").run();
    });
    const [report] = await Promise.all([importing, other]);
    // It ran once the whole import was in: in its own transaction, not in one of the import's batches.
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBe(bazingaSessions());
    expect(report.entities.reduce((n, e) => n + e.skipped, 0)).toBe(0);
    expect(ledgerCount(db, "SELECT count(*) FROM sessions WHERE id = 'elsewhere'")).toBe(1);
    db.$client.close();
  });
});
