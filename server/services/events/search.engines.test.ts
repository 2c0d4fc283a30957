/** events.search on both engines (issue 21); its query-plan checks stay SQLite-only. */
import { describe, expect, it, vi } from "vitest";
import { demoLedgerFactory } from "@/test/support/demo-ledger";
import type { Db } from "@/db/client";
import { ValidationError } from "@/server/domain/errors";
import { ACTORS, sessionWithTask, setup } from "@/test/support/api-helpers";
import type { ServiceContext } from "../context";
import { createSession } from "../session/create";
import { moveTask } from "../task/move";
import { type AuditEvent, searchEvents } from "./search";
import type { EventFilter } from "./schemas";
import { listEventTypes } from "./types";
import { describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsLikeSqlite } from "@/test/support/rows";

const freshLedger = ledgerFactory();
const demoLedger = demoLedgerFactory();

/** Every event the filter matches, newest first, paging `limit` at a time. */
async function all(db: Db, filter: EventFilter, limit = 25): Promise<AuditEvent[]> {
  const seen: AuditEvent[] = [];
  let cursor: number | null = null;
  do {
    const page = await searchEvents(db, { filter, cursor, limit });
    seen.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return seen;
}

/** What the filter must return: the same rows selected by hand, newest first. */
async function expected(db: Db, where: string, ...params: unknown[]): Promise<number[]> {
  const rows = await rowsLikeSqlite<{ id: number }>(
    db,
    `SELECT e.id FROM events e LEFT JOIN sessions s ON s.id = e.session_id WHERE ${where} ORDER BY e.id DESC`,
    ...params,
  );
  return rows.map((r) => r.id);
}

describeEngines("events.search", (engine) => {
  describe("events.search: the audit log's filters", async () => {
    const NOW = new Date("2026-11-21T12:00:00Z");
    const f = setup(await demoLedger(engine, { sessions: 40, seed: 5, now: NOW, logsPerSession: 1 }));
    const some = (
      await rowsLikeSqlite<{ session_id: string; actor: string; type: string; at: number }>(
        f.db,
        "SELECT session_id, actor, type, at FROM events WHERE session_id IS NOT NULL ORDER BY id LIMIT 1 OFFSET 300",
      )
    )[0]!;
    const day = new Date(some.at);
    const from = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate()));
    const to = new Date(from.getTime() + 86_400_000 - 1);

    const CASES: [string, EventFilter, string, unknown[]][] = [
      ["none", {}, "1 = 1", []],
      ["type", { type: "task.claimed" }, "e.type = ?", ["task.claimed"]],
      ["actor", { actor: some.actor }, "e.actor = ?", [some.actor]],
      ["session", { sessionId: some.session_id }, "e.session_id = ?", [some.session_id]],
      ["source (every demo session)", { source: "demo" }, "s.source = ?", ["demo"]],
      ["source nothing has", { source: "bazinga" }, "s.source = ?", ["bazinga"]],
      ["one day (few events: read from the at index)", { from, to }, "e.at BETWEEN ? AND ?", [from.getTime(), to.getTime()]],
      ["everything since long ago (many events: walked)", { from: new Date("2020-01-01T00:00:00Z") }, "e.at >= ?", [Date.parse("2020-01-01T00:00:00Z")]],
      ["until a day", { to }, "e.at <= ?", [to.getTime()]],
      [
        "all of them together",
        { type: some.type, actor: some.actor, sessionId: some.session_id, source: "demo", from, to },
        "e.type = ? AND e.actor = ? AND e.session_id = ? AND s.source = 'demo' AND e.at BETWEEN ? AND ?",
        [some.type, some.actor, some.session_id, from.getTime(), to.getTime()],
      ],
    ];

    it.each(CASES)("%s: pages hold exactly the matching events, newest first, none missed or repeated", async (_name, filter, where, params) => {
      const want = await expected(f.db, where, ...params);
      expect((await all(f.db, filter)).map((e) => e.id)).toEqual(want);
    });

    it("the cases above are not vacuous: each narrows, and most match something", async () => {
      const total = (await expected(f.db, "1 = 1")).length;
      for (const [name, filter] of CASES.slice(1)) {
        const n = (await all(f.db, filter, 1000)).length;
        expect(n, name).toBeLessThanOrEqual(total);
        if (name !== "source nothing has") expect(n, name).toBeGreaterThan(0);
      }
      expect((await all(f.db, { type: "task.claimed" }, 1000)).length).toBeLessThan(total);
      expect((await all(f.db, { from, to }, 1000)).length).toBeLessThan(500);
    });

    it("describes each event as the overview's feed does, and carries its session's source", async () => {
      const [claim] = (await searchEvents(f.db, { filter: { type: "task.claimed" }, limit: 1 })).items;
      expect(claim!.summary).toMatch(new RegExp(`^${claim!.actor} claimed task \\S+ as done$`));
      expect(claim!.source).toBe("demo");
    });
  });

  describe("events.search: every filter reads an index", async () => {
    const f = setup(await demoLedger(engine, { sessions: 60, seed: 3, now: new Date("2026-11-21T12:00:00Z"), logsPerSession: 1 }));
    const FILTERS: EventFilter[] = [
      { type: "task.claimed" },
      { actor: "developer_1" },
      { sessionId: "x" },
      { source: "bazinga" },
      { from: new Date("2026-11-21T11:00:00Z"), to: new Date("2026-11-21T11:10:00Z") },
      { type: "task.claimed", actor: "developer_1", source: "demo" },
    ];

    async function plan(filter: EventFilter, cursor: number | null): Promise<string> {
      const prepare = vi.spyOn(f.db.$client, "prepare");
      await searchEvents(f.db, { filter, cursor, limit: 5 });
      const statement = prepare.mock.calls
        .map(([sql]) => sql)
        .filter((sql) => /left join "sessions"/i.test(sql))
        .at(-1)!;
      prepare.mockRestore();
      const nulls = Array.from({ length: (statement.match(/\?/g) ?? []).length }, () => null);
      return (await rowsLikeSqlite<{ detail: string }>(f.db, `explain query plan ${statement}`, ...nulls)).map((r) => r.detail).join("\n");
    }

    // SQLite only: reads SQLite's query plans (EXPLAIN QUERY PLAN) of the statements better-sqlite3 prepared.
    (engine === "sqlite" ? it : it.skip).each(FILTERS.flatMap((filter) => [null, 900].map((cursor) => [JSON.stringify(filter), cursor, filter] as const)))(
      "%s (cursor %s)",
      async (_name, cursor, filter) => {
        const text = await plan(filter, cursor);
        // The events are found through an index (or their ids, from one), never by reading the table.
        expect(text).toMatch(/SEARCH events USING (COVERING )?INDEX events_\w+_idx|SEARCH events USING INTEGER PRIMARY KEY \(rowid=\?\)/);
        expect(text).not.toMatch(/^SCAN events/m);
        // A page is the first rows of an index range, not a sort of every match; only a rare
        // source's events (fewer than 500, counted first) are gathered from its sessions and sorted.
        if (!(filter.source === "bazinga")) expect(text).not.toMatch(/TEMP B-TREE/);
      },
    );

    // SQLite only: as above.
    it.runIf(engine === "sqlite")("a dense source or time range walks the log newest first and stops at the page's end, never sorting", async () => {
      for (const filter of [{ source: "demo" }, { from: new Date("2020-01-01T00:00:00Z") }] as EventFilter[]) {
        const text = await plan(filter, 900);
        expect(text).toMatch(/SEARCH events USING INTEGER PRIMARY KEY \(rowid<\?\)/);
        expect(text).not.toMatch(/TEMP B-TREE/);
      }
    });

    it("lists the types in the log from the type index", async () => {
      const types = await listEventTypes(f.db);
      expect(types).toEqual((await rowsLikeSqlite<{ type: string }>(f.db, "SELECT DISTINCT type FROM events ORDER BY type")).map((r) => r.type));
      expect(types.length).toBeGreaterThan(5);
    });
  });

  describe("events.search while events arrive", () => {
    it("pages back through the log with no gap or repeat while new events are written between pages", async () => {
      const f = setup(await freshLedger(engine));
      const ctx: ServiceContext = { db: f.db, actor: ACTORS.orchestrator };
      for (let i = 0; i < 12; i++) await createSession(ctx, { id: `s${i}` });
      const before = await expected(f.db, "1 = 1");
      const seen: number[] = [];
      let cursor: number | null = null;
      let written = 0;
      do {
        const page = await searchEvents(f.db, { cursor, limit: 5 });
        seen.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor;
        // Someone writes while the reader looks at this page.
        await createSession(ctx, { id: `new${written++}` });
      } while (cursor !== null);
      expect(seen).toEqual(before);
      // The first page, read again, starts with the newest.
      expect((await searchEvents(f.db, { limit: 1 })).items[0]!.entityId).toBe(`new${written - 1}`);
    });

    it("a task's move shows up on the first page at once, described", async () => {
      const f = setup(await freshLedger(engine));
      await sessionWithTask(f);
      await moveTask({ db: f.db, actor: ACTORS.developer }, { sessionId: "s1", key: "t1", move: "start" });
      const [top] = (await searchEvents(f.db, { filter: { sessionId: "s1" }, limit: 1 })).items;
      expect(top).toMatchObject({ type: "task.started", actor: "developer_1", summary: "developer_1 started task t1", source: "api" });
    });
  });

  describe("events.search refuses bad input, naming the field", async () => {
    const f = setup(await freshLedger(engine));
    it.each([
      ["an unknown filter", { filter: { kind: "x" } }, "filter.kind"],
      ["a source that is not one", { filter: { source: "cron" } }, "filter.source"],
      ["a range that ends before it starts", { filter: { from: new Date("2026-02-01"), to: new Date("2026-01-01") } }, "filter.to"],
      ["a date that is text", { filter: { from: "yesterday" } }, "filter.from"],
      ["a cursor that is not an id", { cursor: -3 }, "cursor"],
      ["a page too large", { limit: 5000 }, "limit"],
      ["a session id with spaces", { filter: { sessionId: "a b" } }, "filter.sessionId"],
    ])("%s", async (_name, input, field) => {
      let error: unknown;
      try {
        await searchEvents(f.db, input as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
      expect((error as ValidationError).rule).toBe("events.invalid_input");
    });
  });
});
