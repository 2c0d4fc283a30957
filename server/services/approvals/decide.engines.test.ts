/** The inbox's bulk reset decisions, on both engines (issue 21). */
import { describe, expect, it } from "vitest";
import { type Fixture, expectBadRequest, expectForbidden, setup } from "@/test/support/api-helpers";
import { ROLES } from "@/server/domain/actors";
import { decideResets } from "./decide";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsLikeSqlite, tableCountsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

/** s1 with blocked tasks r1, r2 (reset requested) and n1 (no request); s2 with blocked r3 (requested). */
async function world(engine: Engine): Promise<Fixture> {
  const f = setup(await freshLedger(engine));
  for (const sessionId of ["s1", "s2"]) await f.as("orchestrator").session.create({ id: sessionId });
  for (const [sessionId, key, request] of [
    ["s1", "r1", true],
    ["s1", "r2", true],
    ["s1", "n1", false],
    ["s2", "r3", true],
  ] as const) {
    await f.as("orchestrator").task.create({ sessionId, key, title: `Task ${key}` });
    await f.as("developer").task.claim({ sessionId, key });
    await f.as("verifier").task.block({ sessionId, key, failures: [`${key} fails`] });
    if (request) await f.as("orchestrator").task.requestReset({ sessionId, key, reason: `${key} fixed` });
  }
  return f;
}

const status = async (f: Fixture, sessionId: string, key: string) =>
  (
    await rowsLikeSqlite<{ status: string; reset_requested: number }>(
      f.db,
      "SELECT status, reset_requested FROM tasks WHERE session_id = ? AND key = ?",
      sessionId,
      key,
    )
  )[0];

/** The moves recorded for the task, each with its reason, and the event each wrote. */
const history = (f: Fixture, key: string) =>
  rowsLikeSqlite<{ move: string; reason: string | null; actor: string }>(
    f.db,
    "SELECT tt.move, tt.reason, tt.actor FROM task_transitions tt JOIN tasks t ON t.id = tt.task_id WHERE t.key = ? ORDER BY tt.id",
    key,
  );
const eventsOf = (f: Fixture, type: string) =>
  rowsLikeSqlite<{ entity_id: string; actor: string }>(f.db, "SELECT entity_id, actor FROM events WHERE type = ? ORDER BY id", type);

describeEngines("bulk reset decisions", (engine) => {
  describe("task.approveResets: several blocked tasks back to pending with one reason", () => {
    it("applies each as its own move and names the one refused, the others still applied", async () => {
      const f = await world(engine);
      const before = (await eventsOf(f, "task.reset_approved")).length;
      const r2 = (await rowsLikeSqlite<{ version: number }>(f.db, "SELECT version FROM tasks WHERE key = 'r2'"))[0]!.version;
      // Someone moves r2 after the lead saw it: the lead's version is now stale.
      await f.as("orchestrator").task.report({ sessionId: "s1", key: "r2", assignee: "developer_3" });
      const report = await f.as("lead").task.approveResets({
        tasks: [
          { sessionId: "s1", key: "r1" },
          { sessionId: "s1", key: "r2", expectedVersion: r2 },
          { sessionId: "s2", key: "r3" },
          { sessionId: "s2", key: "ghost" },
        ],
        reason: "  CI fixed upstream  ",
      });
      expect(report).toMatchObject({ applied: 2, refused: 2 });
      expect(report.results).toEqual([
        { sessionId: "s1", key: "r1", outcome: "applied", status: "pending", version: expect.any(Number) },
        {
          sessionId: "s1",
          key: "r2",
          outcome: "refused",
          kind: "conflict",
          rule: "task.version_conflict",
          message: expect.stringContaining(`task r2 changed since version ${r2}`),
        },
        { sessionId: "s2", key: "r3", outcome: "applied", status: "pending", version: expect.any(Number) },
        { sessionId: "s2", key: "ghost", outcome: "refused", kind: "not_found", rule: "task.not_found", message: 'task "s2/ghost" does not exist' },
      ]);
      expect(await status(f, "s1", "r1")).toEqual({ status: "pending", reset_requested: 0 });
      expect(await status(f, "s1", "r2")).toEqual({ status: "blocked", reset_requested: 1 });
      expect(await status(f, "s2", "r3")).toEqual({ status: "pending", reset_requested: 0 });
      // One transition and one event per applied task, each with the one reason.
      for (const key of ["r1", "r3"])
        expect((await history(f, key)).at(-1)).toEqual({ move: "approve_reset", reason: "CI fixed upstream", actor: "lead@example.com" });
      expect((await history(f, "r2")).map((t) => t.move)).not.toContain("approve_reset");
      expect((await eventsOf(f, "task.reset_approved")).length - before).toBe(2);
    });

    it("refuses a task that is not blocked with the machine's rule, as the single move would", async () => {
      const f = await world(engine);
      await f.as("lead").task.approveReset({ sessionId: "s1", key: "r1", reason: "first" });
      const single = await f
        .as("lead")
        .task.approveReset({ sessionId: "s1", key: "r1", reason: "again" })
        .catch((e: Error) => e.message);
      const report = await f.as("lead").task.approveResets({ tasks: [{ sessionId: "s1", key: "r1" }], reason: "again" });
      expect(report.results[0]).toMatchObject({ outcome: "refused", kind: "forbidden", rule: "task.approve_reset_from_pending", message: single });
    });
  });

  describe("task.declineResets: several reset requests closed with one reason, the tasks staying blocked", () => {
    it("declines each request and names the task that had none", async () => {
      const f = await world(engine);
      const report = await f.as("admin").task.declineResets({
        tasks: [
          { sessionId: "s1", key: "r1" },
          { sessionId: "s1", key: "n1" },
          { sessionId: "s2", key: "r3" },
        ],
        reason: "Not until the flaky suite is fixed",
      });
      expect(report.applied).toBe(2);
      expect(report.results.map((r) => [r.key, r.outcome])).toEqual([
        ["r1", "applied"],
        ["n1", "refused"],
        ["r3", "applied"],
      ]);
      expect(report.results[1]).toMatchObject({ rule: "task.no_reset_request", message: expect.stringContaining("no pending reset request to decline") });
      expect(await status(f, "s1", "r1")).toEqual({ status: "blocked", reset_requested: 0 });
      expect(await status(f, "s1", "n1")).toEqual({ status: "blocked", reset_requested: 0 });
      expect((await history(f, "r3")).at(-1)).toEqual({ move: "decline_reset", reason: "Not until the flaky suite is fixed", actor: "admin@example.com" });
      expect(await eventsOf(f, "task.reset_declined")).toHaveLength(2);
    });
  });

  describe("who may decide in bulk, and bad input", () => {
    it("refuses every role but lead and admin once, with the single move's rule, and writes nothing", async () => {
      const f = await world(engine);
      const input = { tasks: [{ sessionId: "s1", key: "r1" }], reason: "r" };
      for (const role of ROLES.filter((r) => r !== "lead" && r !== "admin")) {
        const actor = { principalId: `token:${role}`, principalKind: "token" as const, role, label: `${role}_x` };
        const before = await tableCountsOf(f.db);
        await expectForbidden(f.by(actor).task.approveResets(input), "task.approve_reset_role");
        await expectForbidden(f.by(actor).task.declineResets(input), "task.decline_reset_role");
        expect(await tableCountsOf(f.db)).toEqual(before);
      }
      // The service refuses the same when called directly (the CLI, MCP), not only behind the router.
      await expect(
        decideResets({ db: f.db, actor: { principalId: "token:v", principalKind: "token", role: "viewer", label: "v" } }, "approve_reset", input),
      ).rejects.toThrow(/role viewer may not approve a reset of a task/);
    });

    it("names the bad field and writes nothing", async () => {
      const f = await world(engine);
      const lead = f.as("lead");
      const before = await tableCountsOf(f.db);
      await expectBadRequest(lead.task.approveResets({ tasks: [], reason: "r" }), "tasks");
      await expectBadRequest(lead.task.approveResets({ tasks: [{ sessionId: "s1", key: "r1" }], reason: "   " }), "reason");
      await expectBadRequest(
        lead.task.approveResets({
          tasks: [
            { sessionId: "s1", key: "r1" },
            { sessionId: "s1", key: "r1" },
          ],
          reason: "r",
        }),
        "tasks",
      );
      const many = Array.from({ length: 101 }, (_, i) => ({ sessionId: "s1", key: `k${i}` }));
      expect((await expectBadRequest(lead.task.declineResets({ tasks: many, reason: "r" }), "tasks")).message).toContain("at most 100");
      await expectBadRequest(lead.task.declineResets({ tasks: [{ sessionId: "bad id!", key: "r1" }], reason: "r" }), "tasks[0].sessionId");
      expect(await tableCountsOf(f.db)).toEqual(before);
    });
  });
});
