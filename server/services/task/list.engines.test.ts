/** task.board on both engines (issue 21). */
import { sql } from "drizzle-orm";
import { expect, it, vi } from "vitest";
import { rawRun } from "@/db/query";
import { BLOCKED, PASSED, expectBadRequest, expectNotFound, refusal, setup } from "@/test/support/api-helpers";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const S = { sessionId: "s1" };

describeEngines("task.board: every task with its full history in one call", (engine) => {
  it("returns claimant, verifier, evidence, proofpack, failures, reset fields and each task's own transitions", async () => {
    const f = setup(await freshLedger(engine));
    await f.as("orchestrator").session.create({ id: "s1" });
    await f.as("orchestrator").session.create({ id: "other" });
    for (const key of ["done", "retry", "idle"]) await f.as("orchestrator").task.create({ ...S, key, title: key });
    await f.as("orchestrator").task.create({ sessionId: "other", key: "done", title: "elsewhere" });
    await f.as("developer").task.claim({ sessionId: "other", key: "done" });

    await f.as("developer").task.claim({ ...S, key: "done", evidence: ["ci/run/1"] });
    await f.as("verifier").task.verify({ ...S, key: "done", proofpack: PASSED });
    await f.as("orchestrator").task.complete({ ...S, key: "done" });

    await f.as("developer").task.claim({ ...S, key: "retry", evidence: ["shot.png"] });
    await f.as("verifier").task.block({ ...S, key: "retry", failures: ["screenshot missing"], proofpack: BLOCKED });
    await f.as("orchestrator").task.requestReset({ ...S, key: "retry", reason: "added it" });
    await f.as("lead").task.approveReset({ ...S, key: "retry", reason: "ok" });
    await f.as("developer2").task.claim({ ...S, key: "retry" });
    await f.as("verifier2").task.block({ ...S, key: "retry", failures: ["still missing"] });
    await f.as("developer").task.requestReset({ ...S, key: "retry", reason: "really added" });

    const board = await f.as("viewer").task.board(S);
    expect(board.sessionId).toBe("s1");
    expect(board.tasks.map((t) => [t.key, t.status])).toEqual([
      ["done", "completed"],
      ["retry", "blocked"],
      ["idle", "pending"],
    ]);

    const [done, retry, idle] = board.tasks;
    expect(done).toMatchObject({
      claimedBy: "developer_1",
      claimedByPrincipal: "token:1",
      verifiedBy: "verifier_1",
      verifiedByPrincipal: "token:2",
      completedBy: "orchestrator_1",
      evidence: ["ci/run/1"],
      proofpack: { verdict: "PASSED" },
      verification: "verified",
    });
    expect(done!.transitions.map((t) => t.move)).toEqual(["create", "claim", "verify", "complete"]);
    expect(retry).toMatchObject({
      claimedBy: "developer_2",
      blockedBy: "verifier_2",
      failures: ["still missing"],
      proofpack: null,
      resetRequested: true,
      resetRequestedBy: "developer_1",
      resetReason: "really added",
      resetCount: 1,
    });
    expect(retry!.transitions.map((t) => [t.move, t.fromStatus, t.toStatus, t.actor])).toEqual([
      ["create", null, "pending", "orchestrator_1"],
      ["claim", "pending", "claimed", "developer_1"],
      ["block", "claimed", "blocked", "verifier_1"],
      ["request_reset", "blocked", "blocked", "orchestrator_1"],
      ["approve_reset", "blocked", "pending", "lead@example.com"],
      ["claim", "pending", "claimed", "developer_2"],
      ["block", "claimed", "blocked", "verifier_2"],
      ["request_reset", "blocked", "blocked", "developer_1"],
    ]);
    // The first attempt survives the reset in its block transition.
    expect(retry!.transitions[2]).toMatchObject({ claimant: "developer_1", failures: ["screenshot missing"], proofpack: { verdict: "BLOCKED" } });
    expect(idle!.transitions.map((t) => t.move)).toEqual(["create"]);
    expect(board.tasks.flatMap((t) => t.transitions).every((tr) => tr.sessionId === "s1")).toBe(true);
  });

  it("reads 200 tasks and their 1,000 transitions, in three statements (counted on SQLite), not one per task", async () => {
    const f = setup(await freshLedger(engine));
    await f.as("orchestrator").session.create({ id: "s1" });
    // Written straight into the tables (the board only reads them): 200 tasks, five transitions each.
    await rawRun(
      f.db,
      sql`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
          INSERT INTO tasks (session_id, key, title) SELECT 's1', 'task_' || i, 'Task ' || i FROM n`,
    );
    await rawRun(
      f.db,
      sql`INSERT INTO task_transitions (task_id, session_id, move, from_status, to_status, actor)
          SELECT t.id, 's1', m.move, m.from_status, m.to_status, 'agent'
          FROM tasks t CROSS JOIN (
            SELECT 1 AS ord, 'create' AS move, NULL AS from_status, 'pending' AS to_status
            UNION ALL SELECT 2, 'start', 'pending', 'in_progress'
            UNION ALL SELECT 3, 'claim', 'in_progress', 'claimed'
            UNION ALL SELECT 4, 'block', 'claimed', 'blocked'
            UNION ALL SELECT 5, 'approve_reset', 'blocked', 'pending'
          ) m
          ORDER BY t.id, m.ord`,
    );
    // The statements are counted on SQLite, where each is one better-sqlite3 prepare.
    const prepare = engine === "sqlite" ? vi.spyOn(f.db.$client, "prepare") : undefined;
    const board = await f.as("viewer").task.board(S);
    const statements = prepare?.mock.calls.map(([sql]) => sql).filter((sql) => /^\s*select/i.test(sql));
    prepare?.mockRestore();
    expect(board.tasks).toHaveLength(200);
    expect(board.tasks.every((t) => t.transitions.map((tr) => tr.move).join() === "create,start,claim,block,approve_reset")).toBe(true);
    if (statements) expect(statements).toHaveLength(3);
  });

  it("answers NOT_FOUND for an unknown session, names a bad sessionId, and needs a caller", async () => {
    const f = setup(await freshLedger(engine));
    await expectNotFound(f.as("viewer").task.board({ sessionId: "nope" }));
    await expectBadRequest(f.as("viewer").task.board({ sessionId: "" }), "sessionId");
    await expectBadRequest(f.as("viewer").task.board({ sessionId: "s1", status: "blocked" } as never), "status");
    expect((await refusal(f.by(null).task.board(S))).code).toBe("UNAUTHORIZED");
  });
});
