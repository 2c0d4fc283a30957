import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Fixture, ACTORS, BLOCKED, PASSED, callerFor, expectBadRequest, refusal, setup } from "@/test/support/api-helpers";
import { handleClaudeCodeHook } from "@/server/services/runtime/hook";
import { sessionStart, stop, subagentStop } from "@/server/services/runtime/test-payloads";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsLikeSqlite, tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

const T0 = Date.parse("2026-04-01T08:00:00.000Z");
const at = (minutes: number) => vi.setSystemTime(T0 + minutes * 60_000);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  at(0);
});
afterEach(() => {
  vi.useRealTimers();
});

/**
 * s1 (active, started first): 5 tasks — pending, in progress, claimed, blocked with a reset
 * request, completed; 2 required criteria, 1 met. s2 (completed): its one task done, criterion
 * met, completion accepted. s3 (failed). s4 (active, observe): a completion nobody verified.
 */
async function world(engine: Engine): Promise<Fixture> {
  const f = setup(await freshLedger(engine));
  const o = f.as("orchestrator");
  await o.session.create({ id: "s1", requirements: "Add JWT auth" });
  await o.criteria.save({ sessionId: "s1", criteria: [{ criterion: "Tests pass" }, { criterion: "Docs" }] });
  for (const key of ["p", "i", "c", "b", "d"]) await o.task.create({ sessionId: "s1", key, title: key });
  await f.as("developer").task.start({ sessionId: "s1", key: "i" });
  for (const key of ["c", "b", "d"]) await f.as("developer").task.claim({ sessionId: "s1", key });
  await f.as("verifier").task.block({ sessionId: "s1", key: "b", failures: ["lint"], proofpack: BLOCKED });
  await o.task.requestReset({ sessionId: "s1", key: "b", reason: "fixed" });
  await f.as("verifier").task.verify({ sessionId: "s1", key: "d", proofpack: PASSED });
  await o.task.complete({ sessionId: "s1", key: "d" });
  await f.as("developer").criteria.update({ sessionId: "s1", criterion: "Tests pass", status: "met" });

  at(10);
  await o.session.create({ id: "s2", requirements: "Dark mode" });
  await o.criteria.save({ sessionId: "s2", criteria: [{ criterion: "Ships" }] });
  await o.task.create({ sessionId: "s2", key: "t", title: "t" });
  await f.as("developer").task.claim({ sessionId: "s2", key: "t" });
  await f.as("verifier").task.verify({ sessionId: "s2", key: "t", proofpack: PASSED });
  await o.task.complete({ sessionId: "s2", key: "t" });
  await f.as("developer").criteria.update({ sessionId: "s2", criterion: "Ships", status: "met" });
  await o.session.updateStatus({ sessionId: "s2", status: "completed" });

  at(20);
  await o.session.create({ id: "s3" });
  await o.session.updateStatus({ sessionId: "s3", status: "failed" });
  at(30);
  await o.session.create({ id: "s4", enforcement: "observe" });
  await o.task.create({ sessionId: "s4", key: "legacy", title: "legacy" });
  await o.task.report({ sessionId: "s4", key: "legacy", status: "completed" });
  return f;
}

describeEngines("get", (engine) => {
  describe("session.overview", () => {
    it("shows live sessions with progress, session and task totals from the rollups, and the inbox count", async () => {
      const f = await world(engine);
      const before = await tableCountsOf(f.db);
      const overview = await f.as("viewer").session.overview();
      expect(await tableCountsOf(f.db)).toEqual(before);

      expect(overview.sessions).toEqual({ total: 4, active: 2, completed: 1, failed: 1 });
      expect(overview.live.total).toBe(2);
      expect(overview.live.items).toEqual([
        {
          id: "s4",
          requirements: null,
          mode: null,
          source: "api",
          enforcement: "observe",
          startedAt: new Date(T0 + 30 * 60_000),
          tasks: { total: 1, completed: 1, blocked: 0, claimed: 0, unverified: 1 },
          criteria: { required: 0, met: 0 },
        },
        {
          id: "s1",
          requirements: "Add JWT auth",
          mode: null,
          source: "api",
          enforcement: "enforce",
          startedAt: new Date(T0),
          tasks: { total: 5, completed: 1, blocked: 1, claimed: 1, unverified: 0 },
          criteria: { required: 2, met: 1 },
        },
      ]);

      // The same figures counted independently from the task rows.
      const counted = Object.fromEntries(
        (await rowsLikeSqlite<{ status: string; n: number }>(f.db, "select status, count(*) as n from tasks group by status")).map((r) => [r.status, r.n]),
      );
      expect(overview.tasks).toEqual({ total: 7, pending: 1, in_progress: 1, claimed: 1, verified: 0, blocked: 1, completed: 3, unverified: 1 });
      for (const status of ["pending", "in_progress", "claimed", "verified", "blocked", "completed"] as const)
        expect(overview.tasks[status]).toBe(counted[status] ?? 0);
      expect(overview.inbox).toEqual({ blocked: 1, resetRequested: 1 });
    });

    it("limits the live list but still counts every live session", async () => {
      const f = await world(engine);
      const overview = await f.as("viewer").session.overview({ liveLimit: 1 });
      expect(overview.live.items.map((s) => s.id)).toEqual(["s4"]);
      expect(overview.live.total).toBe(2);
    });

    it("lists the last 10 completion checks across sessions, newest first, with their reasons", async () => {
      const f = await world(engine);
      for (let i = 0; i < 11; i++) {
        at(40 + i);
        await f.as("orchestrator").completion.check({ sessionId: i % 2 ? "s1" : "s3" });
      }
      const { recentChecks } = await f.as("viewer").session.overview();
      expect(recentChecks).toHaveLength(10);
      expect(recentChecks.map((c) => c.at.getTime())).toEqual(Array.from({ length: 10 }, (_, i) => T0 + (50 - i) * 60_000));
      expect(recentChecks[0]).toMatchObject({
        sessionId: "s3",
        accepted: false,
        metCount: 0,
        totalCount: 0,
        actor: "orchestrator_1",
        reasons: [expect.stringContaining("No required success criteria")],
      });
      expect(recentChecks[1]).toMatchObject({ sessionId: "s1", accepted: false, metCount: 1, totalCount: 2 });
      expect(recentChecks[1]!.reasons).toContain("1 task is blocked: b");
      // The accepted check s2 made when it completed is older than these ten.
      expect(recentChecks.some((c) => c.accepted)).toBe(false);
      const fewer = await (async () => {
        const g = await world(engine);
        return (await g.as("viewer").session.overview()).recentChecks;
      })();
      expect(fewer.map((c) => [c.sessionId, c.accepted])).toEqual([["s2", true]]);
    });

    it("shows the last 20 events, newest first, each in one line", async () => {
      const f = await world(engine);
      const { activity } = await f.as("viewer").session.overview();
      const last = await rowsLikeSqlite<{ id: number; type: string }>(f.db, "select id, type from events order by id desc limit 20");
      expect(activity.map((a) => [a.id, a.type])).toEqual(last.map((e) => [e.id, e.type]));
      expect(activity[0]).toMatchObject({
        type: "unverified_completion",
        sessionId: "s4",
        actor: "orchestrator_1",
        role: "orchestrator",
        entity: "task",
        summary: "orchestrator_1 reported task legacy completed without verification",
      });
      expect(activity.map((a) => a.summary)).toContain("orchestrator_1 changed session s3 from active to failed");
      expect(activity.map((a) => a.summary)).toContain("developer_1 claimed task t as done");
    });

    it("counts the stops agent runtimes' hooks held and let through with the gate rejected, across sessions", async () => {
      const f = setup(await freshLedger(engine));
      const hook = { db: f.db, actor: { ...ACTORS.orchestrator, label: "claude" } };
      const inRuntime = (id: string) => callerFor(f.db, ACTORS.orchestrator, { runtimeSession: { runtime: "claude-code", externalId: id } });
      for (const [runtime, session] of [
        ["rt-a", "a"],
        ["rt-b", "b"],
      ] as const) {
        await handleClaudeCodeHook(hook, sessionStart("startup", runtime));
        await inRuntime(runtime).session.create({ id: session });
      }
      // rt-a: held, held (the agent's and a subagent's), then through after the cap of 1; rt-b: held twice, a stop without stop_hook_active restarting the count.
      await handleClaudeCodeHook(hook, stop(false, "rt-a"), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, subagentStop(false, "rt-a"), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, stop(true, "rt-a"), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, stop(false, "rt-b"), { maxBlocks: 1 });
      await handleClaudeCodeHook(hook, stop(false, "rt-b"), { maxBlocks: 1 });
      expect((await f.as("viewer").session.overview()).runtimeStops).toEqual({ held: 4, unverified: 1, sessionsUnverified: 1 });
      // No active linked session: the stop goes through, counted nowhere.
      await f.as("orchestrator").session.updateStatus({ sessionId: "b", status: "failed" });
      await handleClaudeCodeHook(hook, stop(false, "rt-b"), { maxBlocks: 1 });
      expect((await f.as("viewer").session.overview()).runtimeStops).toEqual({ held: 4, unverified: 1, sessionsUnverified: 1 });
    });

    it("answers an empty ledger with zeros and empty lists", async () => {
      const f = setup(await freshLedger(engine));
      expect(await f.as("viewer").session.overview()).toEqual({
        sessions: { total: 0, active: 0, completed: 0, failed: 0 },
        live: { total: 0, items: [] },
        tasks: { total: 0, pending: 0, in_progress: 0, claimed: 0, verified: 0, blocked: 0, completed: 0, unverified: 0 },
        inbox: { blocked: 0, resetRequested: 0 },
        runtimeStops: { held: 0, unverified: 0, sessionsUnverified: 0 },
        recentChecks: [],
        activity: [],
      });
    });

    it("names a bad field and needs a signed-in caller", async () => {
      const f = setup(await freshLedger(engine));
      await expectBadRequest(f.as("viewer").session.overview({ liveLimit: 0 }), "liveLimit");
      await expectBadRequest(f.as("viewer").session.overview({ liveLimit: 101 }), "liveLimit");
      expect((await refusal(f.by(null).session.overview())).code).toBe("UNAUTHORIZED");
    });
  });
});
