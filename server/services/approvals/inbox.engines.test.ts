/** The inbox of blocked tasks, on both engines (issue 21). */
import { sql } from "drizzle-orm";
import { rawRun } from "@/db/query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Fixture, BLOCKED, PASSED, expectBadRequest, expectNotFound, refusal, setup } from "@/test/support/api-helpers";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsLikeSqlite, tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const T0 = Date.parse("2026-02-02T09:00:00.000Z");
const MIN = 60_000;
const at = (minutes: number) => vi.setSystemTime(T0 + minutes * MIN);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  at(0);
});
afterEach(() => {
  vi.useRealTimers();
});

const failures = (key: string) => [`${key}: component tests - 3 failing`];

async function claimAndBlock(f: Fixture, sessionId: string, key: string, minute: number): Promise<void> {
  await f.as("developer").task.claim({ sessionId, key, evidence: [`artifacts/${key}.txt`] });
  at(minute);
  await f.as("verifier").task.block({ sessionId, key, failures: failures(key), proofpack: BLOCKED });
}

/**
 * Two sessions. Blocked: s1/a (minute 10), s2/b (20, reset requested at 50), s1/c (30), s2/d
 * (40, reset requested at 60), s1/g (first blocked at 5, reset, blocked again at 70). Not blocked:
 * s1/e (claimed), s1/f (blocked at 1, reset approved: pending). Created in an order unlike either.
 */
async function world(engine: Engine): Promise<Fixture> {
  const f = setup(await freshLedger(engine));
  await f.as("orchestrator").session.create({ id: "s1", requirements: "Add JWT auth" });
  await f.as("orchestrator").session.create({ id: "s2", requirements: "Dark mode" });
  for (const [sessionId, key] of [
    ["s1", "g"],
    ["s1", "c"],
    ["s1", "a"],
    ["s2", "d"],
    ["s2", "b"],
    ["s1", "f"],
    ["s1", "e"],
  ] as const) {
    await f.as("orchestrator").task.create({ sessionId, key, title: `Task ${key}` });
  }
  await claimAndBlock(f, "s1", "f", 1);
  await f.as("lead").task.approveReset({ sessionId: "s1", key: "f", reason: "retry" });
  await claimAndBlock(f, "s1", "g", 5);
  await f.as("lead").task.approveReset({ sessionId: "s1", key: "g", reason: "retry" });
  await claimAndBlock(f, "s1", "a", 10);
  await claimAndBlock(f, "s2", "b", 20);
  await claimAndBlock(f, "s1", "c", 30);
  await claimAndBlock(f, "s2", "d", 40);
  at(50);
  await f.as("orchestrator").task.requestReset({ sessionId: "s2", key: "b", reason: "fixed the component tests" });
  at(60);
  await f.as("developer").task.requestReset({ sessionId: "s2", key: "d", reason: "flaky test quarantined" });
  await f.as("developer2").task.claim({ sessionId: "s1", key: "g" });
  at(70);
  await f.as("verifier2").task.block({ sessionId: "s1", key: "g", failures: failures("g") });
  await f.as("developer").task.claim({ sessionId: "s1", key: "e" });
  at(90);
  return f;
}

const keys = (page: { items: { key: string }[] }) => page.items.map((i) => i.key);

describeEngines("the inbox", (engine) => {
  describe("task.inbox: every blocked task, reset requests first, then the longest-waiting", () => {
    it("orders across sessions and tells each task's story", async () => {
      const f = await world(engine);
      const before = await tableCountsOf(f.db);
      const page = await f.as("viewer").task.inbox({});
      expect(await tableCountsOf(f.db)).toEqual(before);
      expect(keys(page)).toEqual(["b", "d", "a", "c", "g"]);
      expect(page.nextCursor).toBeNull();
      expect(page.items.map((i) => i.blockedSince.getTime())).toEqual([20, 40, 10, 30, 70].map((m) => T0 + m * MIN));

      const b = page.items[0]!;
      expect(b).toMatchObject({
        key: "b",
        title: "Task b",
        version: 4,
        resetCount: 0,
        evidence: ["artifacts/b.txt"],
        failures: ["b: component tests - 3 failing"],
        proofpack: { verdict: "BLOCKED", checks: [{ name: "component tests", passed: false, detail: "3 failing" }] },
        claimant: { label: "developer_1", principal: "token:1" },
        blocker: { label: "verifier_1", principal: "token:2", role: "verifier", move: "block" },
        resetRequest: { by: "orchestrator_1", principal: "token:3", reason: "fixed the component tests", at: new Date(T0 + 50 * MIN) },
        session: { id: "s2", requirements: "Dark mode", status: "active", source: "api", enforcement: "enforce" },
      });
      expect(b.claimant!.at).toBeInstanceOf(Date);
      expect(page.items[1]!.resetRequest).toMatchObject({ by: "developer_1", principal: "token:1", reason: "flaky test quarantined" });
      expect(page.items[2]!).toMatchObject({ key: "a", resetRequest: null, session: { id: "s1", requirements: "Add JWT auth" } });

      // Blocked a second time: the wait counts from the latest block, the claimant is the second attempt's.
      expect(page.items[4]!).toMatchObject({
        key: "g",
        resetCount: 1,
        proofpack: null,
        failures: ["g: component tests - 3 failing"],
        claimant: { label: "developer_2", principal: "token:4" },
        blocker: { label: "verifier_2", principal: "token:5" },
      });
    });

    it("pages with a keyset cursor: every task exactly once, unmoved by tasks leaving the inbox meanwhile", async () => {
      const f = await world(engine);
      const first = await f.as("viewer").task.inbox({ limit: 2 });
      expect(keys(first)).toEqual(["b", "d"]);
      // Someone approves a reset from the first page: an OFFSET would now skip "a".
      await f.as("lead").task.approveReset({ sessionId: "s2", key: "b", reason: "reviewed" });
      const second = await f.as("viewer").task.inbox({ limit: 2, cursor: first.nextCursor });
      expect(keys(second)).toEqual(["a", "c"]);
      const third = await f.as("viewer").task.inbox({ limit: 2, cursor: second.nextCursor });
      expect(keys(third)).toEqual(["g"]);
      expect(third.nextCursor).toBeNull();
      expect(keys(await f.as("viewer").task.inbox({ limit: 5 }))).toEqual(["d", "a", "c", "g"]);
    });

    it("takes the input tRPC's infinite queries send (cursor null, direction forward)", async () => {
      const f = await world(engine);
      const page = await f.as("viewer").task.inbox({ cursor: null, direction: "forward", limit: 3 });
      expect(keys(page)).toEqual(["b", "d", "a"]);
      expect(keys(await f.as("viewer").task.inbox({ cursor: page.nextCursor, direction: "forward", limit: 3 }))).toEqual(["c", "g"]);
      expect(keys(await f.as("viewer").task.inbox())).toEqual(["b", "d", "a", "c", "g"]);
    });

    it("filters by session", async () => {
      const f = await world(engine);
      expect(keys(await f.as("viewer").task.inbox({ sessionId: "s2" }))).toEqual(["b", "d"]);
      expect(keys(await f.as("viewer").task.inbox({ sessionId: "s1", limit: 1 }))).toEqual(["a"]);
      await f.as("orchestrator").session.create({ id: "s3" });
      expect(await f.as("viewer").task.inbox({ sessionId: "s3" })).toEqual({ items: [], nextCursor: null });
      await expectNotFound(f.as("viewer").task.inbox({ sessionId: "nope" }));
    });

    it("lists a task an observe session's orchestrator reported blocked, with the reporter as blocker", async () => {
      const f = setup(await freshLedger(engine));
      await f.as("orchestrator").session.create({ id: "obs", enforcement: "observe" });
      await f.as("orchestrator").task.create({ sessionId: "obs", key: "group_a", title: "Legacy" });
      at(3);
      await f.as("orchestrator").task.report({ sessionId: "obs", key: "group_a", status: "blocked", sourceStatus: "failed" });
      at(6);
      // A details-only report touches the row, not the wait.
      await f.as("orchestrator").task.report({ sessionId: "obs", key: "group_a", assignee: "developer_3" });
      at(9);
      const [item] = (await f.as("viewer").task.inbox()).items;
      expect(item).toMatchObject({
        key: "group_a",
        claimant: null,
        failures: [],
        proofpack: null,
        blocker: { label: "orchestrator_1", move: "report" },
        blockedSince: new Date(T0 + 3 * MIN),
      });
    });

    it("orders a task made blocked by hand-written SQL by its last update, among the others", async () => {
      const f = await world(engine);
      await f.as("orchestrator").session.create({ id: "obs", enforcement: "observe" });
      await f.as("orchestrator").task.create({ sessionId: "obs", key: "raw", title: "Blocked by hand" });
      const updatedAt = T0 + 15 * MIN;
      await rawRun(f.db, sql`UPDATE tasks SET status = 'blocked', verification = 'none', updated_at = ${updatedAt} WHERE key = 'raw'`);
      const waiting = (await f.as("viewer").task.inbox()).items.filter((i) => !i.resetRequest);
      expect(waiting.map((i) => i.key)).toEqual(["a", "raw", "c", "g"]);
      expect(waiting[1]?.blockedSince).toEqual(new Date(updatedAt));
    });

    it("names the bad field", async () => {
      const f = await world(engine);
      await expectBadRequest(f.as("viewer").task.inbox({ limit: 0 }), "limit");
      await expectBadRequest(f.as("viewer").task.inbox({ limit: 201 }), "limit");
      await expectBadRequest(f.as("viewer").task.inbox({ sessionId: "" }), "sessionId");
      await expectBadRequest(f.as("viewer").task.inbox({ direction: "backward" as "forward" }), "direction");
      const r = await expectBadRequest(f.as("viewer").task.inbox({ cursor: "not-a-cursor" }), "cursor");
      expect(r.data.rule).toBe("inbox.cursor_invalid");
    });

    it("needs a signed-in caller", async () => {
      const f = await world(engine);
      expect((await refusal(f.by(null).task.inbox())).code).toBe("UNAUTHORIZED");
      expect((await refusal(f.by(null).task.inboxCount())).code).toBe("UNAUTHORIZED");
    });
  });

  describe("task.inbox filters: session source, age, reset requested or not, blocked by whom", () => {
    it("filters by reset request, keeping the inbox's order", async () => {
      const f = await world(engine);
      expect(keys(await f.as("viewer").task.inbox({ resetRequested: true }))).toEqual(["b", "d"]);
      expect(keys(await f.as("viewer").task.inbox({ resetRequested: false }))).toEqual(["a", "c", "g"]);
    });

    it("filters by age: only tasks blocked at least that many hours ago", async () => {
      const f = await world(engine);
      // Now is minute 90: an hour's wait means blocked at minute 30 or before.
      expect(keys(await f.as("viewer").task.inbox({ minAgeHours: 1 }))).toEqual(["b", "a", "c"]);
      expect(keys(await f.as("viewer").task.inbox({ minAgeHours: 2 }))).toEqual([]);
      at(60 * 24 + 70);
      expect(keys(await f.as("viewer").task.inbox({ minAgeHours: 24 }))).toEqual(["b", "d", "a", "c", "g"]);
    });

    it("filters by who blocked the task, the reporter of a task reported blocked included", async () => {
      const f = await world(engine);
      expect(keys(await f.as("viewer").task.inbox({ blockedBy: "verifier_2" }))).toEqual(["g"]);
      expect(keys(await f.as("viewer").task.inbox({ blockedBy: "verifier_1" }))).toEqual(["b", "d", "a", "c"]);
      expect(keys(await f.as("viewer").task.inbox({ blockedBy: "nobody" }))).toEqual([]);
      await f.as("orchestrator").session.create({ id: "obs", enforcement: "observe" });
      await f.as("orchestrator").task.create({ sessionId: "obs", key: "legacy", title: "Legacy" });
      await f.as("orchestrator").task.report({ sessionId: "obs", key: "legacy", status: "blocked" });
      const reported = await f.as("viewer").task.inbox({ blockedBy: "orchestrator_1" });
      expect(reported.items.map((i) => [i.key, i.blocker.label])).toEqual([["legacy", "orchestrator_1"]]);
    });

    it("filters by the session's source, and combines filters with the session", async () => {
      const f = await world(engine);
      await f.as("orchestrator").session.create({ id: "bz", source: "bazinga" });
      await f.as("orchestrator").task.create({ sessionId: "bz", key: "z", title: "Imported" });
      await claimAndBlock(f, "bz", "z", 95);
      expect(keys(await f.as("viewer").task.inbox({ source: "bazinga" }))).toEqual(["z"]);
      expect(keys(await f.as("viewer").task.inbox({ source: "api" }))).toEqual(["b", "d", "a", "c", "g"]);
      expect(keys(await f.as("viewer").task.inbox({ source: "shots-on-goal" }))).toEqual([]);
      expect(keys(await f.as("viewer").task.inbox({ sessionId: "s1", resetRequested: false, blockedBy: "verifier_1" }))).toEqual(["a", "c"]);
    });

    it("pages a filtered inbox with the keyset cursor", async () => {
      const f = await world(engine);
      const first = await f.as("viewer").task.inbox({ resetRequested: false, limit: 2 });
      expect(keys(first)).toEqual(["a", "c"]);
      const second = await f.as("viewer").task.inbox({ resetRequested: false, limit: 2, cursor: first.nextCursor });
      expect(keys(second)).toEqual(["g"]);
      expect(second.nextCursor).toBeNull();
    });

    it("counts what the filtered list holds", async () => {
      const f = await world(engine);
      const viewer = f.as("viewer");
      expect(await viewer.task.inboxCount({ resetRequested: false })).toEqual({ blocked: 3, resetRequested: 0 });
      expect(await viewer.task.inboxCount({ resetRequested: true })).toEqual({ blocked: 2, resetRequested: 2 });
      expect(await viewer.task.inboxCount({ blockedBy: "verifier_1" })).toEqual({ blocked: 4, resetRequested: 2 });
      expect(await viewer.task.inboxCount({ sessionId: "s1", minAgeHours: 1 })).toEqual({ blocked: 2, resetRequested: 0 });
      expect(await viewer.task.inboxCount({ source: "demo" })).toEqual({ blocked: 0, resetRequested: 0 });
      await expectNotFound(viewer.task.inboxCount({ sessionId: "nope", resetRequested: true }));
    });

    it("shows 20 tasks on a first page unless asked for more", async () => {
      const f = setup(await freshLedger(engine));
      await f.as("orchestrator").session.create({ id: "many" });
      for (let i = 0; i < 21; i++) {
        const key = `t${String(i).padStart(2, "0")}`;
        await f.as("orchestrator").task.create({ sessionId: "many", key, title: key });
        await claimAndBlock(f, "many", key, i + 1);
      }
      const first = await f.as("viewer").task.inbox();
      expect(first.items).toHaveLength(20);
      expect(keys(await f.as("viewer").task.inbox({ cursor: first.nextCursor }))).toEqual(["t20"]);
    });

    it("names the bad filter and its rule", async () => {
      const f = await world(engine);
      const viewer = f.as("viewer");
      expect((await expectBadRequest(viewer.task.inbox({ source: "nope" as "api" }), "source")).message).toContain("must be one of api, demo");
      await expectBadRequest(viewer.task.inbox({ minAgeHours: 0 }), "minAgeHours");
      await expectBadRequest(viewer.task.inbox({ minAgeHours: 1.5 }), "minAgeHours");
      await expectBadRequest(viewer.task.inbox({ blockedBy: " " }), "blockedBy");
      await expectBadRequest(viewer.task.inbox({ resetRequested: "yes" as unknown as boolean }), "resetRequested");
      await expectBadRequest(viewer.task.inboxCount({ source: "nope" as "api" }), "source");
      await expectBadRequest(viewer.task.inboxCount({ minAgeHours: -1 }), "minAgeHours");
    });
  });

  describe("task.inboxCount: from the rollups", () => {
    it("counts blocked tasks and reset requests, across sessions and per session, as tasks move", async () => {
      const f = await world(engine);
      const counted = async () =>
        (
          await rowsLikeSqlite<{ blocked: number; requested: number }>(
            f.db,
            "select count(*) as blocked, coalesce(sum(cast(reset_requested as integer)), 0) as requested from tasks where status = 'blocked'",
          )
        )[0]!;
      expect(await f.as("viewer").task.inboxCount()).toEqual({ blocked: 5, resetRequested: 2 });
      expect(await counted()).toEqual({ blocked: 5, requested: 2 });
      expect(await f.as("viewer").task.inboxCount({ sessionId: "s2" })).toEqual({ blocked: 2, resetRequested: 2 });
      expect(await f.as("viewer").task.inboxCount({ sessionId: "s1" })).toEqual({ blocked: 3, resetRequested: 0 });

      await f.as("lead").task.approveReset({ sessionId: "s2", key: "d", reason: "ok" });
      await f.as("verifier").task.block({ sessionId: "s1", key: "e", failures: ["lint"] });
      expect(await f.as("viewer").task.inboxCount()).toEqual({ blocked: 5, resetRequested: 1 });
      await f.as("lead").task.approveReset({ sessionId: "s1", key: "e", reason: "ok" });
      expect(await f.as("viewer").task.inboxCount()).toEqual({ blocked: 4, resetRequested: 1 });
      expect(await counted()).toEqual({ blocked: 4, requested: 1 });
      expect((await f.as("viewer").task.inbox()).items).toHaveLength(4);
    });

    it("answers zero on an empty ledger, NOT_FOUND for an unknown session, and names a bad field", async () => {
      const f = setup(await freshLedger(engine));
      expect(await f.as("viewer").task.inboxCount()).toEqual({ blocked: 0, resetRequested: 0 });
      await expectNotFound(f.as("viewer").task.inboxCount({ sessionId: "nope" }));
      await expectBadRequest(f.as("viewer").task.inboxCount({ sessionId: "bad id!" }), "sessionId");
    });
  });

  // SQLite only: reads SQLite's query plans (EXPLAIN QUERY PLAN) of the statements better-sqlite3 prepared.
  it.runIf(engine === "sqlite")("finds blocked tasks through the partial index that holds only them, for the list and the count", async () => {
    const f = await world(engine);
    const prepare = vi.spyOn(f.db.$client, "prepare");
    await f.as("viewer").task.inbox({ limit: 2 });
    await f.as("viewer").task.inboxCount();
    const statements = [...new Set(prepare.mock.calls.map(([sql]) => sql).filter((sql) => sql.includes("'blocked'") && /from "tasks"/i.test(sql)))];
    prepare.mockRestore();
    expect(statements).toHaveLength(2);
    for (const sql of statements) {
      const nulls = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
      const plan = (await rowsLikeSqlite<{ detail: string }>(f.db, `explain query plan ${sql}`, ...nulls)).map((r) => r.detail);
      expect(plan.join("\n")).toMatch(/USING (COVERING )?INDEX tasks_inbox_idx/);
      // Read in the index's order: never a sort of every blocked task.
      expect(plan.join("\n")).not.toMatch(/TEMP B-TREE/);
    }
  });

  // SQLite only: reads SQLite's query plans (EXPLAIN QUERY PLAN) of the statements better-sqlite3 prepared.
  it.runIf(engine === "sqlite")("answers the source and blocked-by filters from the inbox index alone, without reading a task's row", async () => {
    const f = await world(engine);
    const prepare = vi.spyOn(f.db.$client, "prepare");
    for (const filter of [{ source: "demo" as const }, { blockedBy: "verifier" }]) {
      await f.as("viewer").task.inbox({ ...filter, limit: 2 });
      await f.as("viewer").task.inboxCount(filter);
    }
    const statements = [...new Set(prepare.mock.calls.map(([sql]) => sql).filter((sql) => sql.includes("'blocked'") && /from "tasks"/i.test(sql)))];
    prepare.mockRestore();
    // Per filter: the list's ordered ids (one statement per reset flag, the same SQL) and the count.
    expect(statements).toHaveLength(4);
    for (const sql of statements) {
      const nulls = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
      const plan = (await rowsLikeSqlite<{ detail: string }>(f.db, `explain query plan ${sql}`, ...nulls)).map((r) => r.detail);
      expect(plan.join("\n")).toMatch(/USING COVERING INDEX tasks_inbox_idx/);
    }
  });

  // SQLite only: reads SQLite's query plans (EXPLAIN QUERY PLAN) of the statements better-sqlite3 prepared.
  it.runIf(engine === "sqlite")("reads one session's blocked tasks through its (session, status) index, not through every blocked task", async () => {
    const f = await world(engine);
    const sessionId = (await rowsLikeSqlite<{ id: string }>(f.db, "SELECT session_id AS id FROM tasks WHERE status = 'blocked' LIMIT 1"))[0]!.id;
    const prepare = vi.spyOn(f.db.$client, "prepare");
    const page = await f.as("viewer").task.inbox({ sessionId });
    const statements = [...new Set(prepare.mock.calls.map(([sql]) => sql).filter((sql) => sql.includes("'blocked'") && /from "tasks"/i.test(sql)))];
    prepare.mockRestore();
    expect(page.items.length).toBeGreaterThan(0);
    expect(statements.length).toBeGreaterThan(0);
    for (const sql of statements) {
      const nulls = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
      const plan = (await rowsLikeSqlite<{ detail: string }>(f.db, `explain query plan ${sql}`, ...nulls)).map((r) => r.detail);
      expect(plan.join("\n")).toMatch(/USING (COVERING )?INDEX tasks_session_id_status_idx \(session_id=\? AND status=\?\)/);
    }
  });

  it("keeps a verified task out of the inbox", async () => {
    const f = setup(await freshLedger(engine));
    await f.as("orchestrator").session.create({ id: "s1" });
    await f.as("orchestrator").task.create({ sessionId: "s1", key: "ok", title: "fine" });
    await f.as("developer").task.claim({ sessionId: "s1", key: "ok" });
    await f.as("verifier").task.verify({ sessionId: "s1", key: "ok", proofpack: PASSED });
    expect(await f.as("viewer").task.inbox()).toEqual({ items: [], nextCursor: null });
  });
});
