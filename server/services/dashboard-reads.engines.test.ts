/**
 * The dashboard's reads on both engines (issue 21): the sessions list with its filters, search and
 * pages, the approvals inbox with its filters and pages, the inbox count, the overview's figures
 * and the audit log's search — each asked of the same world on SQLite and on PostgreSQL, with the
 * same expected answers. These reads take different SQL on each engine (SQLite's FTS5 and INDEXED
 * BY, unary `+`, summed booleans), so each branch is exercised here, the "many matches" ones too.
 * Runs in the `pg` project; without PostgreSQL only the SQLite half runs.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db } from "@/db/client";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { appendEvent, write } from "@/server/services/context";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import { sessionStart, stop } from "@/server/services/runtime/test-payloads";
import { ACTORS, BLOCKED, type Caller, callerFor } from "@/test/support/api-helpers";
import { ENGINES, ledgerFactory } from "@/test/support/engines";

const T0 = Date.parse("2026-02-02T09:00:00.000Z");
const MIN = 60_000;
const minute = (m: number) => new Date(T0 + m * MIN);
const at = (m: number) => vi.setSystemTime(minute(m));

beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  at(0);
});
afterAll(async () => {
  vi.useRealTimers();
});

const freshLedger = ledgerFactory();

/** Events written in one bulk write at minute 200, in the `shots-on-goal` session: more than the audit log's "few matches" (500). */
const BULK = 520;

/**
 * Six sessions, started a minute apart: s1 (0, "Add JWT auth"), s2 (1, "Dark mode", failed), bz
 * (2, bazinga, "Import JWT tokens from Bazinga"), obs (3, observe), pct (4, "100% of the_ work"),
 * rt (5, linked to the agent runtime rt-a). Blocked: s1/a (minute 10), s2/b (20, reset requested
 * at 50), s1/c (30), s2/d (40, reset requested at 60), s1/g (first blocked at 5, reset, blocked
 * again at 70 by verifier_2), bz/z (80), obs/legacy (reported blocked at 85 by the orchestrator).
 * Not blocked: s1/e (claimed), s1/f (reset approved: pending). rt-a's stops: one held, then one
 * let through with the gate rejecting (minute 88). Then sog (shots-on-goal, minute 190) with BULK
 * events at minute 200. The clock stops at minute 210.
 */
async function world(db: Db): Promise<(name: keyof typeof ACTORS) => Caller> {
  const as = (name: keyof typeof ACTORS) => callerFor(db, ACTORS[name]);
  const hook = { db, actor: { ...ACTORS.orchestrator, label: "claude" } };
  const claimAndBlock = async (sessionId: string, key: string, m: number) => {
    await as("developer").task.claim({ sessionId, key, evidence: [`artifacts/${key}.txt`] });
    at(m);
    await as("verifier").task.block({ sessionId, key, failures: [`${key}: tests fail`], proofpack: BLOCKED });
  };
  at(0);
  await as("orchestrator").session.create({ id: "s1", requirements: "Add JWT auth" });
  at(1);
  await as("orchestrator").session.create({ id: "s2", requirements: "Dark mode" });
  at(2);
  await as("orchestrator").session.create({ id: "bz", source: "bazinga", requirements: "Import JWT tokens from Bazinga" });
  at(3);
  await as("orchestrator").session.create({ id: "obs", enforcement: "observe" });
  at(4);
  await as("orchestrator").session.create({ id: "pct", requirements: "100% of the_ work" });
  at(5);
  await handleClaudeCodeHook(hook, sessionStart("startup", "rt-a"));
  await callerFor(db, ACTORS.orchestrator, { runtimeSession: { runtime: "claude-code", externalId: "rt-a" } }).session.create({ id: "rt" });
  for (const [sessionId, key] of [
    ["s1", "g"],
    ["s1", "c"],
    ["s1", "a"],
    ["s2", "d"],
    ["s2", "b"],
    ["s1", "f"],
    ["s1", "e"],
    ["bz", "z"],
    ["obs", "legacy"],
  ] as const) {
    await as("orchestrator").task.create({ sessionId, key, title: `Task ${key}` });
  }
  await claimAndBlock("s1", "f", 5);
  await as("lead").task.approveReset({ sessionId: "s1", key: "f", reason: "retry" });
  await claimAndBlock("s1", "g", 5);
  await as("lead").task.approveReset({ sessionId: "s1", key: "g", reason: "retry" });
  await claimAndBlock("s1", "a", 10);
  await claimAndBlock("s2", "b", 20);
  await claimAndBlock("s1", "c", 30);
  await claimAndBlock("s2", "d", 40);
  at(50);
  await as("orchestrator").task.requestReset({ sessionId: "s2", key: "b", reason: "fixed the tests" });
  at(60);
  await as("developer").task.requestReset({ sessionId: "s2", key: "d", reason: "flaky test quarantined" });
  await as("developer2").task.claim({ sessionId: "s1", key: "g" });
  at(70);
  await as("verifier2").task.block({ sessionId: "s1", key: "g", failures: ["g: tests fail"] });
  await as("developer").task.claim({ sessionId: "s1", key: "e" });
  await claimAndBlock("bz", "z", 80);
  at(85);
  await as("orchestrator").task.report({ sessionId: "obs", key: "legacy", status: "blocked" });
  at(86);
  await as("orchestrator").session.updateStatus({ sessionId: "s2", status: "failed" });
  at(88);
  await handleClaudeCodeHook(hook, stop(false, "rt-a"), { maxBlocks: 1 });
  await handleClaudeCodeHook(hook, stop(true, "rt-a"), { maxBlocks: 1 });
  at(190);
  await as("orchestrator").session.create({ id: "sog", source: "shots-on-goal" });
  at(200);
  await write({ db, actor: ACTORS.orchestrator }, async (tx) => {
    for (let i = 0; i < BULK; i++) {
      await appendEvent(
        tx,
        { db, actor: ACTORS.orchestrator },
        { type: EVENT_TYPES.logsAppended, sessionId: "sog", entity: "log", entityId: i + 1, data: { count: 1 } },
      );
    }
  });
  at(210);
  return as;
}

const ids = (page: { items: { id: string }[] }) => page.items.map((s) => s.id);
const keys = (page: { items: { key: string }[] }) => page.items.map((i) => i.key);
const decode = (cursor: string | null) => JSON.parse(Buffer.from(cursor!, "base64url").toString()) as unknown;

describe.each(ENGINES)("the dashboard's reads on $engine", ({ engine, skip }) => {
  let as: (name: keyof typeof ACTORS) => Caller;
  beforeAll(async () => {
    if (skip) return;
    as = await world(await freshLedger(engine));
  }, 60_000);

  describe("session.list", () => {
    it.skipIf(skip)("lists newest or oldest first, in keyset pages, with the page's unverified stops", async () => {
      const viewer = as("viewer");
      const all = await viewer.session.list({});
      expect(ids(all)).toEqual(["sog", "rt", "pct", "obs", "bz", "s2", "s1"]);
      expect(all.nextCursor).toBeNull();
      expect(all.unverifiedStops).toEqual({ rt: 1 });
      expect(ids(await viewer.session.list({ order: "oldest" }))).toEqual(["s1", "s2", "bz", "obs", "pct", "rt", "sog"]);

      const pages: string[][] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<Caller["session"]["list"]>> = await viewer.session.list({ limit: 3, cursor, direction: "forward" });
        pages.push(ids(page));
        if (pages.length === 2) expect(page.unverifiedStops).toEqual({});
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages).toEqual([["sog", "rt", "pct"], ["obs", "bz", "s2"], ["s1"]]);
      const oldest = await viewer.session.list({ order: "oldest", limit: 2 });
      expect(ids(oldest)).toEqual(["s1", "s2"]);
      expect(ids(await viewer.session.list({ order: "oldest", limit: 2, cursor: oldest.nextCursor }))).toEqual(["bz", "obs"]);
    });

    it.skipIf(skip)("filters by status, source, blocked tasks and start time", async () => {
      const viewer = as("viewer");
      expect(ids(await viewer.session.list({ status: "failed" }))).toEqual(["s2"]);
      expect(ids(await viewer.session.list({ status: "active" }))).toEqual(["sog", "rt", "pct", "obs", "bz", "s1"]);
      expect(ids(await viewer.session.list({ source: "bazinga" }))).toEqual(["bz"]);
      expect(ids(await viewer.session.list({ source: "demo" }))).toEqual([]);
      expect(ids(await viewer.session.list({ hasBlocked: true }))).toEqual(["obs", "bz", "s2", "s1"]);
      expect(ids(await viewer.session.list({ startedFrom: minute(1), startedTo: minute(3) }))).toEqual(["obs", "bz", "s2"]);
      expect(ids(await viewer.session.list({ startedFrom: minute(4) }))).toEqual(["sog", "rt", "pct"]);
      expect(ids(await viewer.session.list({ status: "active", hasBlocked: true, order: "oldest" }))).toEqual(["s1", "bz", "obs"]);
    });

    it.skipIf(skip)("searches ids and requirements, case-insensitively, from three characters and below", async () => {
      const search = async (text: string, more: object = {}) => ids(await as("viewer").session.list({ search: text, ...more }));
      // Three characters or more: SQLite's trigram index, PostgreSQL's pg_trgm one.
      expect(await search("jwt")).toEqual(["bz", "s1"]);
      expect(await search("JWT")).toEqual(["bz", "s1"]);
      expect(await search("dark MODE")).toEqual(["s2"]);
      expect(await search("obs")).toEqual(["obs"]);
      expect(await search("100%")).toEqual(["pct"]);
      expect(await search("the_")).toEqual(["pct"]);
      expect(await search("%_%")).toEqual([]);
      expect(await search('"quoted"')).toEqual([]);
      expect(await search("no session says this")).toEqual([]);
      // A match lies within the id or within the requirements, never across the two.
      expect(await search("s1 add")).toEqual([]);
      // Shorter: a LIKE (ILIKE) walk.
      expect(await search("Da")).toEqual(["s2"]);
      expect(await search("s2")).toEqual(["s2"]);
      expect(await search("e_")).toEqual(["pct"]);
      expect(await search("%")).toEqual(["pct"]);
      expect(await search("_")).toEqual(["pct"]);
      // With the other filters, and in pages.
      expect(await search("jwt", { source: "bazinga" })).toEqual(["bz"]);
      expect(await search("jwt", { status: "failed" })).toEqual([]);
      expect(await search("jwt", { source: "api", hasBlocked: true })).toEqual(["s1"]);
      const first = await as("viewer").session.list({ search: "jwt", limit: 1 });
      expect(ids(first)).toEqual(["bz"]);
      expect(ids(await as("viewer").session.list({ search: "jwt", limit: 1, cursor: first.nextCursor }))).toEqual(["s1"]);
    });
  });

  describe("task.inbox", () => {
    it.skipIf(skip)("lists reset requests first, then the longest-waiting, and tells each task's story", async () => {
      const page = await as("viewer").task.inbox({});
      expect(keys(page)).toEqual(["b", "d", "a", "c", "g", "z", "legacy"]);
      expect(page.nextCursor).toBeNull();
      expect(page.items.map((i) => i.blockedSince.getTime())).toEqual([20, 40, 10, 30, 70, 80, 85].map((m) => T0 + m * MIN));
      expect(page.items.map((i) => [i.key, i.session.id, i.blocker.label, i.blocker.move, i.claimant?.label ?? null, i.resetRequest?.by ?? null])).toEqual([
        ["b", "s2", "verifier_1", "block", "developer_1", "orchestrator_1"],
        ["d", "s2", "verifier_1", "block", "developer_1", "developer_1"],
        ["a", "s1", "verifier_1", "block", "developer_1", null],
        ["c", "s1", "verifier_1", "block", "developer_1", null],
        ["g", "s1", "verifier_2", "block", "developer_2", null],
        ["z", "bz", "verifier_1", "block", "developer_1", null],
        ["legacy", "obs", "orchestrator_1", "report", null, null],
      ]);
      expect(page.items[0]).toMatchObject({
        version: 4,
        resetCount: 0,
        evidence: ["artifacts/b.txt"],
        failures: ["b: tests fail"],
        proofpack: BLOCKED,
        resetRequest: { principal: "token:3", reason: "fixed the tests", at: minute(50) },
        session: { requirements: "Dark mode", status: "failed", source: "api", enforcement: "enforce", mode: null },
      });
      expect(page.items[4]).toMatchObject({
        resetCount: 1,
        proofpack: null,
        claimant: { principal: "token:4" },
        blocker: { principal: "token:5", role: "verifier" },
      });
    });

    it.skipIf(skip)("pages across the reset requests and the rest with a cursor both engines write alike", async () => {
      const pages: string[][] = [];
      const cursors: unknown[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<Caller["task"]["inbox"]>> = await as("viewer").task.inbox({ limit: 3, cursor, direction: "forward" });
        pages.push(keys(page));
        cursor = page.nextCursor;
        if (cursor) cursors.push(decode(cursor));
      } while (cursor);
      expect(pages).toEqual([["b", "d", "a"], ["c", "g", "z"], ["legacy"]]);
      // [reset requested (0 or 1), blocked at, task id]: a number flag on both engines.
      expect(cursors).toEqual([
        [0, T0 + 10 * MIN, expect.any(Number)],
        [0, T0 + 80 * MIN, expect.any(Number)],
      ]);
      const first = await as("viewer").task.inbox({ limit: 2 });
      expect(decode(first.nextCursor)).toEqual([1, T0 + 40 * MIN, expect.any(Number)]);
      expect(keys(await as("viewer").task.inbox({ limit: 2, cursor: first.nextCursor }))).toEqual(["a", "c"]);
    });

    it.skipIf(skip)("filters by session, source, age, reset request and blocker, alone and together", async () => {
      const inbox = async (input: Parameters<Caller["task"]["inbox"]>[0]) => keys(await as("viewer").task.inbox(input));
      expect(await inbox({ sessionId: "s1" })).toEqual(["a", "c", "g"]);
      expect(await inbox({ sessionId: "s2" })).toEqual(["b", "d"]);
      expect(await inbox({ sessionId: "rt" })).toEqual([]);
      const one = await as("viewer").task.inbox({ sessionId: "s1", limit: 1 });
      expect(keys(one)).toEqual(["a"]);
      expect(await inbox({ sessionId: "s1", limit: 1, cursor: one.nextCursor })).toEqual(["c"]);
      expect(await inbox({ source: "bazinga" })).toEqual(["z"]);
      expect(await inbox({ source: "api" })).toEqual(["b", "d", "a", "c", "g", "legacy"]);
      expect(await inbox({ source: "demo" })).toEqual([]);
      // Now is minute 210: three hours' wait means blocked at minute 30 or before.
      expect(await inbox({ minAgeHours: 3 })).toEqual(["b", "a", "c"]);
      expect(await inbox({ minAgeHours: 4 })).toEqual([]);
      expect(await inbox({ resetRequested: true })).toEqual(["b", "d"]);
      expect(await inbox({ resetRequested: false })).toEqual(["a", "c", "g", "z", "legacy"]);
      expect(await inbox({ blockedBy: "verifier_2" })).toEqual(["g"]);
      expect(await inbox({ blockedBy: "verifier_1" })).toEqual(["b", "d", "a", "c", "z"]);
      expect(await inbox({ blockedBy: "orchestrator_1" })).toEqual(["legacy"]);
      expect(await inbox({ sessionId: "s1", resetRequested: false, blockedBy: "verifier_1" })).toEqual(["a", "c"]);
      expect(await inbox({ source: "api", resetRequested: false, minAgeHours: 3 })).toEqual(["a", "c"]);
      const filtered = await as("viewer").task.inbox({ resetRequested: false, limit: 2 });
      expect(keys(filtered)).toEqual(["a", "c"]);
      expect(await inbox({ resetRequested: false, limit: 2, cursor: filtered.nextCursor })).toEqual(["g", "z"]);
    });

    it.skipIf(skip)("counts what the list holds: the rollups, the inbox index, the filtered terms", async () => {
      const count = (input?: Parameters<Caller["task"]["inboxCount"]>[0]) => as("viewer").task.inboxCount(input);
      expect(await count()).toEqual({ blocked: 7, resetRequested: 2 });
      expect(await count({ sessionId: "s1" })).toEqual({ blocked: 3, resetRequested: 0 });
      expect(await count({ sessionId: "s2" })).toEqual({ blocked: 2, resetRequested: 2 });
      expect(await count({ resetRequested: true })).toEqual({ blocked: 2, resetRequested: 2 });
      expect(await count({ resetRequested: false })).toEqual({ blocked: 5, resetRequested: 0 });
      expect(await count({ blockedBy: "verifier_1" })).toEqual({ blocked: 5, resetRequested: 2 });
      expect(await count({ blockedBy: "orchestrator_1" })).toEqual({ blocked: 1, resetRequested: 0 });
      expect(await count({ source: "bazinga" })).toEqual({ blocked: 1, resetRequested: 0 });
      expect(await count({ source: "demo" })).toEqual({ blocked: 0, resetRequested: 0 });
      expect(await count({ sessionId: "s2", minAgeHours: 3 })).toEqual({ blocked: 1, resetRequested: 1 });
    });
  });

  it.skipIf(skip)("session.overview: the session totals, the inbox and the runtime stops", async () => {
    const overview = await as("viewer").session.overview({ liveLimit: 2 });
    expect(overview.sessions).toEqual({ total: 7, active: 6, completed: 0, failed: 1 });
    expect(overview.live).toMatchObject({ total: 6, items: [{ id: "sog" }, { id: "rt" }] });
    expect(overview.inbox).toEqual({ blocked: 7, resetRequested: 2 });
    expect(overview.runtimeStops).toEqual({ held: 1, unverified: 1, sessionsUnverified: 1 });
    expect(overview.tasks).toMatchObject({ total: 9, blocked: 7, claimed: 1, pending: 1 });
  });

  describe("events.search", () => {
    type Filter = NonNullable<Parameters<Caller["events"]["search"]>[0]>["filter"];
    const search = async (filter: Filter, limit = 100) => (await as("viewer").events.search({ filter, limit })).items;
    const blockedKeys = (items: { data: Record<string, unknown> | null }[]) => items.map((e) => e.data?.key);

    it.skipIf(skip)("filters by type, actor and session, newest first", async () => {
      expect(blockedKeys(await search({ type: "task.blocked" }))).toEqual(["z", "g", "d", "c", "b", "a", "g", "f"]);
      expect((await search({ actor: "verifier_2" })).map((e) => [e.type, e.sessionId, e.data?.key])).toEqual([["task.blocked", "s1", "g"]]);
      expect(blockedKeys(await search({ type: "task.blocked", sessionId: "s2" }))).toEqual(["d", "b"]);
      expect(await search({ type: "no.such.type" })).toEqual([]);
    });

    it.skipIf(skip)("filters by the session's source, a few matches and many", async () => {
      const bazinga = await search({ source: "bazinga" });
      expect(bazinga.map((e) => [e.type, e.sessionId, e.source])).toEqual([
        ["task.blocked", "bz", "bazinga"],
        ["task.claimed", "bz", "bazinga"],
        ["task.created", "bz", "bazinga"],
        ["session.created", "bz", "bazinga"],
      ]);
      expect(bazinga[0]!.summary).toContain("task z");
      // More than 500 events: checked while walking the log.
      const many = await as("viewer").events.search({ filter: { source: "shots-on-goal" }, limit: 1000 });
      expect(many.items).toHaveLength(BULK + 1);
      expect(many.items.at(-1)).toMatchObject({ type: "session.created", sessionId: "sog" });
      expect(new Set(many.items.map((e) => e.source))).toEqual(new Set(["shots-on-goal"]));
      expect(await search({ source: "demo" })).toEqual([]);
    });

    it.skipIf(skip)("filters by time, both bounds inclusive, a few matches and many", async () => {
      expect((await search({ from: minute(20), to: minute(40) })).map((e) => [e.type, e.data?.key])).toEqual([
        ["task.blocked", "d"],
        ["task.claimed", "d"],
        ["task.blocked", "c"],
        ["task.claimed", "c"],
        ["task.blocked", "b"],
      ]);
      expect(blockedKeys(await search({ type: "task.blocked", to: minute(10) }))).toEqual(["a", "g", "f"]);
      // More than 500 events: checked while walking the log.
      const many = await as("viewer").events.search({ filter: { from: minute(190) }, limit: 1000 });
      expect(many.items).toHaveLength(BULK + 1);
      expect((await as("viewer").events.search({ filter: { from: minute(200), to: minute(200) }, limit: 1000 })).items).toHaveLength(BULK);
      expect(blockedKeys(await search({ source: "api", type: "task.blocked", from: minute(25) }))).toEqual(["g", "d", "c"]);
    });

    it.skipIf(skip)("pages back in time with the cursor, under a filter and without", async () => {
      const pages: unknown[][] = [];
      let cursor: number | null = null;
      do {
        const page: Awaited<ReturnType<Caller["events"]["search"]>> = await as("viewer").events.search({ filter: { type: "task.blocked" }, limit: 3, cursor });
        pages.push(blockedKeys(page.items));
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages).toEqual([
        ["z", "g", "d"],
        ["c", "b", "a"],
        ["g", "f"],
      ]);
      const newest = await as("viewer").events.search({ limit: 2 });
      expect(newest.items.map((e) => e.type)).toEqual([EVENT_TYPES.logsAppended, EVENT_TYPES.logsAppended]);
      const walked = await as("viewer").events.search({ filter: { source: "shots-on-goal" }, limit: 400 });
      const rest = await as("viewer").events.search({ filter: { source: "shots-on-goal" }, limit: 400, cursor: walked.nextCursor });
      expect([walked.items.length, rest.items.length, rest.nextCursor]).toEqual([400, BULK + 1 - 400, null]);
    });
  });
});
