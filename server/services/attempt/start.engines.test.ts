import { describe, expect, it } from "vitest";
import { createSession } from "../session/create";
import { createBranch } from "../goal/create-branch";
import { createWorktree } from "../goal/create-worktree";
import { ADMIN, AGENT, ORCHESTRATOR, expectNothingWritten, lastEvent, rootGoal, rowCount, setup } from "@/test/support/goal-fixtures";
import { startAttempt } from "./start";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("attempt start", (engine) => {
  describe("startAttempt", () => {
    it("records the start state and the tools made available, creating the session's tools on first use", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const branch = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "goal-1" });
      const worktree = await createWorktree(f.as(ORCHESTRATOR), { branchId: branch.id, path: "/tmp/wt/1" });
      const started = await startAttempt(f.as(AGENT), {
        goalId: goal,
        model: "openrouter/anthropic/claude-sonnet-4.5",
        prompt: "Achieve the goal",
        startCommitSha: "abc1234",
        worktreeId: worktree.id,
        tools: ["read_file", { name: "write_file", description: "Write a file" }, "read_file"],
      });
      expect(started.attempt).toMatchObject({
        goalId: goal,
        attemptType: "implementation",
        model: "openrouter/anthropic/claude-sonnet-4.5",
        prompt: "Achieve the goal",
        startCommitSha: "abc1234",
        worktreeId: worktree.id,
      });
      expect(started.tools.map((t) => [t.name, t.description, t.sessionId])).toEqual([
        ["read_file", null, "s1"],
        ["write_file", "Write a file", "s1"],
      ]);
      expect(await rowCount(f.db, "attempt_tools")).toBe(2);
      expect(await lastEvent(f.db)).toMatchObject({
        type: "attempt.started",
        entity: "attempt",
        entityId: String(started.attempt.id),
        sessionId: "s1",
        actor: "developer_1",
        data: { goalId: goal, attemptType: "implementation", tools: ["read_file", "write_file"], createdTools: ["read_file", "write_file"] },
      });
    });

    it("reuses a session's tools and keeps them apart from another session's", async () => {
      const f = await setup(await freshLedger(engine));
      await createSession(f.as(ADMIN), { id: "s2" });
      const first = await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f), tools: ["read_file"] });
      const again = await startAttempt(f.as(ORCHESTRATOR), {
        goalId: await rootGoal(f, "second"),
        tools: [{ name: "read_file", description: "ignored: tools never change" }],
      });
      const elsewhere = await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal({ ...f, sessionId: "s2" }), tools: ["read_file"] });
      expect(again.tools[0]).toEqual(first.tools[0]);
      expect(elsewhere.tools[0]!.id).not.toBe(first.tools[0]!.id);
      expect(await rowCount(f.db, "tools")).toBe(2);
    });

    it("gives a breakdown attempt whatever tools the orchestrator chose (003: no read-only flag)", async () => {
      const f = await setup(await freshLedger(engine));
      const started = await startAttempt(f.as(ORCHESTRATOR), { goalId: await rootGoal(f), attemptType: "breakdown", tools: ["read_file", "write_file"] });
      expect(started.attempt.attemptType).toBe("breakdown");
      expect(started.tools.map((t) => t.name)).toEqual(["read_file", "write_file"]);
    });

    it("refuses a worktree of another session, unknown goals and worktrees, and bad input", async () => {
      const f = await setup(await freshLedger(engine));
      await createSession(f.as(ADMIN), { id: "s2" });
      const goal = await rootGoal(f);
      const foreign = await createWorktree(f.as(ORCHESTRATOR), {
        branchId: (await createBranch(f.as(ORCHESTRATOR), { sessionId: "s2", name: "main" })).id,
        path: "/tmp/wt",
      });
      await expectNothingWritten(
        f.db,
        async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal, worktreeId: foreign.id, tools: ["read_file"] }),
        "attempt.worktree_other_session",
      );
      await expectNothingWritten(f.db, async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal, worktreeId: 404 }), "worktree.not_found");
      await expectNothingWritten(f.db, async () => startAttempt(f.as(ORCHESTRATOR), { goalId: 404 }), "goal.not_found");
      await expectNothingWritten(f.db, async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal, startCommitSha: "HEAD" }), "attempt.invalid_input");
      await expectNothingWritten(f.db, async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal, attemptType: "review" as never }), "attempt.invalid_input");
      await expectNothingWritten(
        f.db,
        async () => startAttempt(f.as(ORCHESTRATOR), { goalId: goal, tools: Array.from({ length: 201 }, (_, i) => `t${i}`) }),
        "attempt.invalid_input",
      );
    });
  });
});
