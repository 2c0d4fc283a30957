import { describe, expect, it, vi } from "vitest";
import { BLOCKED, PASSED, expectBadRequest, expectNotFound, refusal, setup } from "@/test/support/api-helpers";

const S = { sessionId: "s1" };

describe("task.board: every task with its full history in one call", () => {
  it("returns claimant, verifier, evidence, proofpack, failures, reset fields and each task's own transitions", async () => {
    const f = setup();
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

  it("reads 200 tasks and their 1,000 transitions in three statements, not one per task", async () => {
    const f = setup();
    await f.as("orchestrator").session.create({ id: "s1" });
    // Written straight into the tables (the board only reads them): 200 tasks, five transitions each.
    const task = f.db.$client.prepare("insert into tasks (session_id, key, title) values ('s1', ?, ?)");
    const transition = f.db.$client.prepare(
      "insert into task_transitions (task_id, session_id, move, from_status, to_status, actor) values (?, 's1', ?, ?, ?, 'agent')",
    );
    const moves = [
      ["create", null, "pending"],
      ["start", "pending", "in_progress"],
      ["claim", "in_progress", "claimed"],
      ["block", "claimed", "blocked"],
      ["approve_reset", "blocked", "pending"],
    ] as const;
    f.db.$client.transaction(() => {
      for (let i = 0; i < 200; i++) {
        const id = Number(task.run(`task_${i}`, `Task ${i}`).lastInsertRowid);
        for (const [move, from, to] of moves) transition.run(id, move, from, to);
      }
    })();
    const prepare = vi.spyOn(f.db.$client, "prepare");
    const board = await f.as("viewer").task.board(S);
    const statements = prepare.mock.calls.map(([sql]) => sql).filter((sql) => /^\s*select/i.test(sql));
    prepare.mockRestore();
    expect(board.tasks).toHaveLength(200);
    expect(board.tasks.every((t) => t.transitions.map((tr) => tr.move).join() === "create,start,claim,block,approve_reset")).toBe(true);
    expect(statements).toHaveLength(3);
  });

  it("answers NOT_FOUND for an unknown session, names a bad sessionId, and needs a caller", async () => {
    const f = setup();
    await expectNotFound(f.as("viewer").task.board({ sessionId: "nope" }));
    await expectBadRequest(f.as("viewer").task.board({ sessionId: "" }), "sessionId");
    await expectBadRequest(f.as("viewer").task.board({ sessionId: "s1", status: "blocked" } as never), "status");
    expect((await refusal(f.by(null).task.board(S))).code).toBe("UNAUTHORIZED");
  });
});
