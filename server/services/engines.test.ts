/**
 * The same services on both engines (issue 21): the ledger's core — sessions, the task machine,
 * criteria and the completion gate — driven through the API on SQLite and on PostgreSQL, with the
 * same answers, the same refusals (from the domain and from the database's own triggers) and one
 * transaction per action. Runs in the `pg` project, which has a throwaway cluster; without
 * PostgreSQL only the SQLite half runs.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type Db, engineOf } from "@/db/client";
import { rawAll, rawRun } from "@/db/query";
import { ACTORS, PASSED, callerFor, expectForbidden, refusal } from "@/test/support/api-helpers";
import { ENGINES, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const T = { sessionId: "s1", key: "t1" };

function messagesOf(error: unknown): string {
  const messages: string[] = [];
  for (let current = error; current instanceof Error; current = current.cause) messages.push(current.message);
  return messages.join(" ← ");
}

describe.each(ENGINES)("the ledger on $engine", ({ engine, skip }) => {
  const as = (db: Db, name: keyof typeof ACTORS) => callerFor(db, ACTORS[name]);

  it.skipIf(skip)("opens on the engine asked for", async () => {
    expect(engineOf(await freshLedger(engine))).toBe(engine);
  });

  it.skipIf(skip)("moves a task create → start → claim → verify → complete, with a transition and an event for each move", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    expect(await as(db, "orchestrator").task.create({ ...T, title: "Implement login" })).toMatchObject({ status: "pending", version: 1 });
    expect(await as(db, "developer").task.start(T)).toMatchObject({ status: "in_progress", version: 2 });
    const claimed = await as(db, "developer").task.claim({ ...T, evidence: ["screenshots/login.png"] });
    expect(claimed).toMatchObject({ status: "claimed", version: 3, claimedBy: "developer_1", evidence: ["screenshots/login.png"] });
    expect(claimed.claimedAt).toBeInstanceOf(Date);
    expect(await as(db, "verifier").task.verify({ ...T, proofpack: PASSED })).toMatchObject({ status: "verified", verifiedBy: "verifier_1" });
    expect(await as(db, "orchestrator").task.complete(T)).toMatchObject({ status: "completed", version: 5, completedBy: "orchestrator_1" });

    const task = await as(db, "viewer").task.get(T);
    expect(task.transitions.map((t) => [t.move, t.fromStatus, t.toStatus, t.actor])).toEqual([
      ["create", null, "pending", "orchestrator_1"],
      ["start", "pending", "in_progress", "developer_1"],
      ["claim", "in_progress", "claimed", "developer_1"],
      ["verify", "claimed", "verified", "verifier_1"],
      ["complete", "verified", "completed", "orchestrator_1"],
    ]);
    const events = await as(db, "viewer").events.list({ sessionId: "s1" });
    expect(events.map((e) => e.type).sort()).toEqual(
      ["session.created", "task.created", "task.started", "task.claimed", "task.verified", "task.completed"].sort(),
    );
    // The rollup counters the triggers keep on the session.
    const session = await as(db, "viewer").session.get({ id: "s1" });
    expect(session).toMatchObject({ tasksTotal: 1, tasksCompleted: 1 });
  });

  it.skipIf(skip)("refuses the claimant's own verification and writes nothing", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    await as(db, "orchestrator").task.create({ ...T, title: "t" });
    await as(db, "admin").task.claim(T);
    const eventsBefore = (await as(db, "viewer").events.list({ sessionId: "s1" })).length;
    await expectForbidden(as(db, "admin").task.verify({ ...T, proofpack: PASSED }), "task.claimant_cannot_verify");
    expect(await as(db, "viewer").task.get(T)).toMatchObject({ status: "claimed", version: 2 });
    expect(await as(db, "viewer").events.list({ sessionId: "s1" })).toHaveLength(eventsBefore);
  });

  it.skipIf(skip)("the database itself refuses a hand-written UPDATE that skips verification", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    await as(db, "orchestrator").task.create({ ...T, title: "t" });
    await as(db, "developer").task.claim(T);
    const refused = await rawRun(db, sql`UPDATE tasks SET status = 'completed', version = version + 1 WHERE key = 't1'`).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Drizzle wraps the driver's error; the trigger's own words are in the chain of causes.
    expect(messagesOf(refused)).toMatch(/task\.[a-z_]+: /);
    expect(await rawAll<{ status: string }>(db, sql`SELECT status FROM tasks WHERE key = 't1'`)).toEqual([{ status: "claimed" }]);
  });

  it.skipIf(skip)("two moves racing on one version: exactly one wins, the other is a CONFLICT", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    await as(db, "orchestrator").task.create({ ...T, title: "t" });
    const results = await Promise.allSettled([
      as(db, "developer").task.claim({ ...T, expectedVersion: 1 }),
      callerFor(db, ACTORS.developer2).task.claim({ ...T, expectedVersion: 1 }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    const refused = await refusal(Promise.reject(lost.reason));
    expect(refused.code).toBe("CONFLICT");
    expect(await as(db, "viewer").task.get(T)).toMatchObject({ status: "claimed", version: 2 });
  });

  it.skipIf(skip)("a refusal half-way through an action keeps nothing of it: a duplicate task key", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    await as(db, "orchestrator").task.create({ ...T, title: "first" });
    const before = (await as(db, "viewer").events.list({ sessionId: "s1" })).length;
    const refused = await refusal(as(db, "orchestrator").task.create({ ...T, title: "second" }));
    expect(refused.code).toBe("CONFLICT");
    expect((await as(db, "viewer").task.list({ sessionId: "s1" })).map((t) => t.title)).toEqual(["first"]);
    expect(await as(db, "viewer").events.list({ sessionId: "s1" })).toHaveLength(before);
  });

  it.skipIf(skip)("completes a session only through its gate: criteria met, tasks verified, a check recorded", async () => {
    const db = await freshLedger(engine);
    await as(db, "orchestrator").session.create({ id: "s1" });
    await as(db, "orchestrator").criteria.save({ sessionId: "s1", criteria: [{ criterion: "All tests pass" }, { criterion: "Coverage ≥ 80%" }] });
    const rejected = await refusal(as(db, "orchestrator").session.updateStatus({ sessionId: "s1", status: "completed" }));
    expect(rejected.data.rule).toBe("completion.rejected");
    expect(await as(db, "viewer").session.get({ id: "s1" })).toMatchObject({ status: "active" });

    await as(db, "orchestrator").criteria.update({ sessionId: "s1", criterion: "All tests pass", status: "met", actual: "212 passed", evidence: "ci/1" });
    await as(db, "orchestrator").criteria.update({ sessionId: "s1", criterion: "Coverage ≥ 80%", status: "met", actual: "84%", evidence: "ci/1" });
    const check = await as(db, "orchestrator").completion.check({ sessionId: "s1" });
    expect(check).toMatchObject({ accepted: true, metCount: 2, totalCount: 2 });
    const { session } = await as(db, "orchestrator").session.updateStatus({ sessionId: "s1", status: "completed" });
    expect(session).toMatchObject({ status: "completed" });
    expect(session.endedAt).toBeInstanceOf(Date);
    const checks = await as(db, "viewer").completion.list({ sessionId: "s1" });
    expect(checks.map((c) => c.accepted)).toEqual([true, true, false]);
  });
});
