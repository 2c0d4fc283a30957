import { describe, expect, it } from "vitest";
import { REASONING_PHASES } from "@/server/domain/vocabulary";
import type { Db } from "@/db/client";
import { expectBadRequest, setup as apiSetup } from "@/test/support/api-helpers";
import { NotFoundError, ValidationError } from "@/server/domain/errors";
import { ingestBatch } from "./ingest-batch";
import { type ListLogsPageInput, listLogs } from "./list-logs";
import { logInteraction } from "./log-interaction";
import { saveEvent } from "./save-event";
import type { IngestBatchInput } from "./schemas";
import { SESSION, T0, setup } from "@/test/support/log-helpers";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const TOTAL = 1234;
const AGENTS = ["developer", "qa_expert", "tech_lead"] as const;

/** Row i: reasoning when i % 5 == 0 (phases in turn), else an interaction; agent by i % 3; group by i % 2. */
function row(i: number): IngestBatchInput["rows"][number] {
  const common = { agentType: AGENTS[i % 3]!, groupId: i % 2 ? "group_b" : "group_a", content: `entry ${i}` };
  return i % 5 === 0 ? { kind: "reasoning", phase: REASONING_PHASES[(i / 5) % 7]!, ...common } : { kind: "interaction", ...common };
}

/** 1,234 rows: the first 1000 at T0, the rest a minute later. Returns the id of row i at index i. */
async function seed(engine: Engine): Promise<{ db: Db; ids: number[] }> {
  const fixture = await setup(await freshLedger(engine));
  const first = await ingestBatch(fixture.admin, { sessionId: SESSION, rows: Array.from({ length: 1000 }, (_, i) => row(i)) });
  fixture.setClock(60_000);
  const second = await ingestBatch(fixture.admin, { sessionId: SESSION, rows: Array.from({ length: TOTAL - 1000 }, (_, i) => row(1000 + i)) });
  return { db: fixture.db, ids: [...first.ids, ...second.ids] };
}

/** Follow nextCursor to the end; returns every id seen, in page order, and the page sizes. */
async function walk(db: Db, input: Omit<ListLogsPageInput, "sessionId" | "cursor">): Promise<{ ids: number[]; pages: number[] }> {
  const ids: number[] = [];
  const pages: number[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = await listLogs(db, { sessionId: SESSION, ...input, cursor });
    ids.push(...page.items.map((item) => item.id));
    pages.push(page.items.length);
    if (page.nextCursor === null) return { ids, pages };
    if (pages.length > TOTAL) throw new Error("pagination does not advance");
    cursor = page.nextCursor;
  }
}

const indexes = (predicate: (i: number) => boolean) => Array.from({ length: TOTAL }, (_, i) => i).filter(predicate);

describeEngines("log list-logs", (engine) => {
  describe("listLogs: keyset pagination", async () => {
    const { db, ids } = await seed(engine);

    it("walks all 1,234 rows exactly once, newest first, 100 a page by default", async () => {
      const walked = await walk(db, {});
      expect(walked.ids).toEqual([...ids].reverse());
      expect(walked.pages).toEqual([...Array(12).fill(100), 34]);
    });

    it("serves pages of 500, in ascending order, with nothing capped at 200", async () => {
      const walked = await walk(db, { limit: 500, order: "asc" });
      expect(walked.ids).toEqual(ids);
      expect(walked.pages).toEqual([500, 500, 234]);
    });

    it.each<[string, Omit<ListLogsPageInput, "sessionId">, (i: number) => boolean]>([
      ["agent type", { agentType: "developer" }, (i) => i % 3 === 0],
      ["reasoning in one group", { logType: "reasoning", groupId: "group_a" }, (i) => i % 10 === 0],
      [
        "interactions of one agent in one group",
        { logType: "interaction", agentType: "qa_expert", groupId: "group_b" },
        (i) => i % 5 !== 0 && i % 3 === 1 && i % 2 === 1,
      ],
      ["a reasoning phase", { reasoningPhase: "risks" }, (i) => i % 5 === 0 && (i / 5) % 7 === 3],
      ["text (LIKE)", { text: "entry 12" }, (i) => String(i).startsWith("12")],
      ["text, any case", { text: "ENTRY 12" }, (i) => String(i).startsWith("12")],
      ["since (inclusive)", { since: new Date(T0 + 60_000) }, (i) => i >= 1000],
      ["until (exclusive)", { until: new Date(T0 + 60_000) }, (i) => i < 1000],
    ])("with a filter on %s returns every matching row exactly once across pages", async (_name, filter, matches) => {
      const expected = indexes(matches).map((i) => ids[i]);
      expect(expected.length).toBeGreaterThan(0);
      expect((await walk(db, { ...filter, limit: 37, order: "asc" })).ids).toEqual(expected);
      expect((await walk(db, { ...filter, limit: 41 })).ids).toEqual([...expected].reverse());
    });

    it("refuses a page larger than 500", async () => {
      await expect(listLogs(db, { sessionId: SESSION, limit: 501 })).rejects.toThrow(ValidationError);
    });
  });

  describe("listLogs: text search", () => {
    it("matches % and _ literally, and searches event payloads", async () => {
      const { db, admin } = await setup(await freshLedger(engine));
      await logInteraction(admin, { sessionId: SESSION, agentType: "qa", content: "coverage 100% reached" });
      await logInteraction(admin, { sessionId: SESSION, agentType: "qa", content: "renamed snake_case helper" });
      await logInteraction(admin, { sessionId: SESSION, agentType: "qa", content: "snakeXcase 100 percent" });
      await saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", payload: { verdict: "ACCEPT" } });
      const search = async (text: string) => (await listLogs(db, { sessionId: SESSION, text, order: "asc" })).items.map((item) => item.content);
      expect(await search("100%")).toEqual(["coverage 100% reached"]);
      expect(await search("snake_case")).toEqual(["renamed snake_case helper"]);
      expect(await search("%")).toEqual(["coverage 100% reached"]);
      expect(await search("ACCEPT")).toEqual(["Event: validator_verdict"]);
    });

    it("refuses a session that does not exist", async () => {
      const { db } = await setup(await freshLedger(engine));
      await expect(listLogs(db, { sessionId: "nope" })).rejects.toThrow(NotFoundError);
    });
  });

  /** Follow prevCursor backward until a page comes back empty; returns the ids in list order. */
  async function walkBack(
    db: Db,
    input: Omit<ListLogsPageInput, "sessionId" | "cursor" | "direction">,
    from: number,
  ): Promise<{ ids: number[]; last: number | null }> {
    const ids: number[] = [];
    let cursor: number | null = from;
    for (let guard = 0; guard <= TOTAL; guard++) {
      const page = await listLogs(db, { sessionId: SESSION, ...input, cursor, direction: "backward" });
      if (page.items.length === 0) return { ids, last: page.prevCursor };
      expect(page.items.length).toBeLessThanOrEqual(input.limit ?? 100);
      ids.unshift(...page.items.map((item) => item.id));
      if (page.prevCursor === null) return { ids, last: null };
      cursor = page.prevCursor;
    }
    throw new Error("backward pagination does not advance");
  }

  describe("listLogs: both directions, for a live timeline", async () => {
    it("newest first: fetches what was written since the first page, in pages next to it, without gaps or repeats", async () => {
      const fixture = await setup(await freshLedger(engine));
      const first = await ingestBatch(fixture.admin, { sessionId: SESSION, rows: Array.from({ length: 150 }, (_, i) => row(i)) });
      const top = await listLogs(fixture.db, { sessionId: SESSION, limit: 50, cursor: null, direction: "forward" });
      expect(top.items.map((item) => item.id)).toEqual([...first.ids].reverse().slice(0, 50));
      expect(top.prevCursor).toBe(first.ids.at(-1));

      // Agents keep writing: 230 rows arrive after the page was read.
      fixture.setClock(60_000);
      const later = await ingestBatch(fixture.admin, { sessionId: SESSION, rows: Array.from({ length: 230 }, (_, i) => row(150 + i)) });
      const newer = await listLogs(fixture.db, { sessionId: SESSION, limit: 50, cursor: top.prevCursor, direction: "backward" });
      // The 50 rows right after the old top, shown newest first like the rest of the timeline.
      expect(newer.items.map((item) => item.id)).toEqual(later.ids.slice(0, 50).reverse());
      expect(newer.nextCursor).toBe(later.ids[0]);

      const walked = await walkBack(fixture.db, { limit: 50 }, top.prevCursor!);
      expect(walked.ids).toEqual([...later.ids].reverse());
      // Caught up: still a cursor to ask again when the next logs.appended event arrives.
      expect(walked.last).toBe(later.ids.at(-1));
      const oneMore = await ingestBatch(fixture.admin, { sessionId: SESSION, rows: [row(999)] });
      expect((await listLogs(fixture.db, { sessionId: SESSION, cursor: walked.last, direction: "backward" })).items.map((item) => item.id)).toEqual(
        oneMore.ids,
      );
    });

    it("newest first: an empty timeline hands out a cursor that catches the first rows", async () => {
      const fixture = await setup(await freshLedger(engine));
      const empty = await listLogs(fixture.db, { sessionId: SESSION });
      expect(empty).toEqual({ items: [], nextCursor: null, prevCursor: 0 });
      const written = await ingestBatch(fixture.admin, { sessionId: SESSION, rows: [row(1), row(2)] });
      expect((await listLogs(fixture.db, { sessionId: SESSION, cursor: empty.prevCursor, direction: "backward" })).items.map((item) => item.id)).toEqual(
        [...written.ids].reverse(),
      );
    });

    const { db, ids } = await seed(engine);

    it.each<[string, Omit<ListLogsPageInput, "sessionId">, (i: number) => boolean]>([
      ["no filter", {}, () => true],
      ["agent type", { agentType: "tech_lead" }, (i) => i % 3 === 2],
      ["reasoning", { logType: "reasoning" }, (i) => i % 5 === 0],
      ["text", { text: "entry 1" }, (i) => String(i).startsWith("1")],
    ])("walks backward from the middle with a filter on %s: every older-or-newer row once, pages in list order", async (_name, filter, matches) => {
      const middle = ids[617]!;
      const newerThanMiddle = indexes((i) => i > 617 && matches(i)).map((i) => ids[i]);
      expect((await walkBack(db, { ...filter, limit: 43 }, middle)).ids).toEqual([...newerThanMiddle].reverse());
      const olderThanMiddle = indexes((i) => i < 617 && matches(i)).map((i) => ids[i]);
      const oldestFirst = await walkBack(db, { ...filter, limit: 43, order: "asc" }, middle);
      expect(oldestFirst.ids).toEqual(olderThanMiddle);
      expect(oldestFirst.last).toBeNull();
    });

    it("keeps each backward page in the list's order and never caps the walk at 200 rows", async () => {
      const page = await listLogs(db, { sessionId: SESSION, cursor: ids[100], direction: "backward", limit: 500 });
      expect(page.items.map((item) => item.id)).toEqual(ids.slice(101, 601).reverse());
      const ascending = await listLogs(db, { sessionId: SESSION, cursor: ids[900], direction: "backward", limit: 500, order: "asc" });
      expect(ascending.items.map((item) => item.id)).toEqual(ids.slice(400, 900));
      expect(ascending.prevCursor).toBe(ids[400]);
    });

    it("oldest first: the first page has nothing before it", async () => {
      expect((await listLogs(db, { sessionId: SESSION, order: "asc", limit: 10 })).prevCursor).toBeNull();
      expect((await listLogs(db, { sessionId: SESSION, order: "asc", limit: 10, cursor: ids[20] })).prevCursor).toBe(ids[21]);
    });

    it("names a bad direction or cursor", async () => {
      await expect(listLogs(db, { sessionId: SESSION, direction: "sideways" as "forward" })).rejects.toThrow(/^direction: /);
      await expect(listLogs(db, { sessionId: SESSION, cursor: -1 })).rejects.toThrow(/^cursor: /);
    });
  });

  describe("log.list over the API", () => {
    it("serves a viewer the pages tRPC's infinite queries ask for, both ways", async () => {
      const f = apiSetup();
      await f.as("orchestrator").session.create({ id: "s1" });
      for (let i = 0; i < 5; i++) await f.as("developer").log.interaction({ sessionId: "s1", agentType: "developer", content: `step ${i}` });
      const first = await f.as("viewer").log.list({ sessionId: "s1", limit: 2, cursor: null, direction: "forward" });
      expect(first.items.map((item) => item.content)).toEqual(["step 4", "step 3"]);
      const older = await f.as("viewer").log.list({ sessionId: "s1", limit: 2, cursor: first.nextCursor, direction: "forward" });
      expect(older.items.map((item) => item.content)).toEqual(["step 2", "step 1"]);
      await f.as("developer").log.interaction({ sessionId: "s1", agentType: "developer", content: "step 5" });
      const newer = await f.as("viewer").log.list({ sessionId: "s1", limit: 2, cursor: first.prevCursor, direction: "backward" });
      expect(newer.items.map((item) => item.content)).toEqual(["step 5"]);
    });

    it("names a bad direction, cursor or limit", async () => {
      const f = apiSetup();
      await f.as("orchestrator").session.create({ id: "s1" });
      await expectBadRequest(f.as("viewer").log.list({ sessionId: "s1", direction: "up" as "forward" }), "direction");
      await expectBadRequest(f.as("viewer").log.list({ sessionId: "s1", cursor: 1.5 }), "cursor");
      await expectBadRequest(f.as("viewer").log.list({ sessionId: "s1", limit: 501 }), "limit");
    });
  });
});
