import { describe, expect, it } from "vitest";
import { REASONING_PHASES } from "@/db/schema/enums";
import type { Db } from "@/db/client";
import { NotFoundError, ValidationError } from "@/server/domain/errors";
import { ingestBatch } from "./ingest-batch";
import { listLogs } from "./list-logs";
import { logInteraction } from "./log-interaction";
import { saveEvent } from "./save-event";
import type { IngestBatchInput, ListLogsInput } from "./schemas";
import { SESSION, T0, setup } from "./test-helpers";

const TOTAL = 1234;
const AGENTS = ["developer", "qa_expert", "tech_lead"] as const;

/** Row i: reasoning when i % 5 == 0 (phases in turn), else an interaction; agent by i % 3; group by i % 2. */
function row(i: number): IngestBatchInput["rows"][number] {
  const common = { agentType: AGENTS[i % 3]!, groupId: i % 2 ? "group_b" : "group_a", content: `entry ${i}` };
  return i % 5 === 0 ? { kind: "reasoning", phase: REASONING_PHASES[(i / 5) % 7]!, ...common } : { kind: "interaction", ...common };
}

/** 1,234 rows: the first 1000 at T0, the rest a minute later. Returns the id of row i at index i. */
function seed(): { db: Db; ids: number[] } {
  const fixture = setup();
  const first = ingestBatch(fixture.admin, { sessionId: SESSION, rows: Array.from({ length: 1000 }, (_, i) => row(i)) });
  fixture.setClock(60_000);
  const second = ingestBatch(fixture.admin, { sessionId: SESSION, rows: Array.from({ length: TOTAL - 1000 }, (_, i) => row(1000 + i)) });
  return { db: fixture.db, ids: [...first.ids, ...second.ids] };
}

/** Follow nextCursor to the end; returns every id seen, in page order, and the page sizes. */
function walk(db: Db, input: Omit<ListLogsInput, "sessionId" | "cursor">): { ids: number[]; pages: number[] } {
  const ids: number[] = [];
  const pages: number[] = [];
  let cursor: number | undefined;
  for (;;) {
    const page = listLogs(db, { sessionId: SESSION, ...input, cursor });
    ids.push(...page.items.map((item) => item.id));
    pages.push(page.items.length);
    if (page.nextCursor === null) return { ids, pages };
    if (pages.length > TOTAL) throw new Error("pagination does not advance");
    cursor = page.nextCursor;
  }
}

const indexes = (predicate: (i: number) => boolean) => Array.from({ length: TOTAL }, (_, i) => i).filter(predicate);

describe("listLogs: keyset pagination", () => {
  const { db, ids } = seed();

  it("walks all 1,234 rows exactly once, newest first, 100 a page by default", () => {
    const walked = walk(db, {});
    expect(walked.ids).toEqual([...ids].reverse());
    expect(walked.pages).toEqual([...Array(12).fill(100), 34]);
  });

  it("serves pages of 500, in ascending order, with nothing capped at 200", () => {
    const walked = walk(db, { limit: 500, order: "asc" });
    expect(walked.ids).toEqual(ids);
    expect(walked.pages).toEqual([500, 500, 234]);
  });

  it.each<[string, Omit<ListLogsInput, "sessionId">, (i: number) => boolean]>([
    ["agent type", { agentType: "developer" }, (i) => i % 3 === 0],
    ["reasoning in one group", { logType: "reasoning", groupId: "group_a" }, (i) => i % 10 === 0],
    ["interactions of one agent in one group", { logType: "interaction", agentType: "qa_expert", groupId: "group_b" }, (i) => i % 5 !== 0 && i % 3 === 1 && i % 2 === 1],
    ["a reasoning phase", { reasoningPhase: "risks" }, (i) => i % 5 === 0 && (i / 5) % 7 === 3],
    ["text (LIKE)", { text: "entry 12" }, (i) => String(i).startsWith("12")],
    ["text, any case", { text: "ENTRY 12" }, (i) => String(i).startsWith("12")],
    ["since (inclusive)", { since: new Date(T0 + 60_000) }, (i) => i >= 1000],
    ["until (exclusive)", { until: new Date(T0 + 60_000) }, (i) => i < 1000],
  ])("with a filter on %s returns every matching row exactly once across pages", (_name, filter, matches) => {
    const expected = indexes(matches).map((i) => ids[i]);
    expect(expected.length).toBeGreaterThan(0);
    expect(walk(db, { ...filter, limit: 37, order: "asc" }).ids).toEqual(expected);
    expect(walk(db, { ...filter, limit: 41 }).ids).toEqual([...expected].reverse());
  });

  it("refuses a page larger than 500", () => {
    expect(() => listLogs(db, { sessionId: SESSION, limit: 501 })).toThrow(ValidationError);
  });
});

describe("listLogs: text search", () => {
  it("matches % and _ literally, and searches event payloads", () => {
    const { db, admin } = setup();
    logInteraction(admin, { sessionId: SESSION, agentType: "qa", content: "coverage 100% reached" });
    logInteraction(admin, { sessionId: SESSION, agentType: "qa", content: "renamed snake_case helper" });
    logInteraction(admin, { sessionId: SESSION, agentType: "qa", content: "snakeXcase 100 percent" });
    saveEvent(admin, { sessionId: SESSION, subtype: "validator_verdict", payload: { verdict: "ACCEPT" } });
    const search = (text: string) => listLogs(db, { sessionId: SESSION, text, order: "asc" }).items.map((item) => item.content);
    expect(search("100%")).toEqual(["coverage 100% reached"]);
    expect(search("snake_case")).toEqual(["renamed snake_case helper"]);
    expect(search("%")).toEqual(["coverage 100% reached"]);
    expect(search("ACCEPT")).toEqual(["Event: validator_verdict"]);
  });

  it("refuses a session that does not exist", () => {
    const { db } = setup();
    expect(() => listLogs(db, { sessionId: "nope" })).toThrow(NotFoundError);
  });
});
