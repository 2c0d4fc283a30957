import { describe, expect, it } from "vitest";
import { createSession } from "../session/create";
import { createBranch } from "./create-branch";
import { createWorktree } from "./create-worktree";
import { getGoal } from "./get";
import { recordMerge } from "./record-merge";
import { ADMIN, AGENT, LEAD, ORCHESTRATOR, expectNothingWritten, expectRefused, lastEvent, rootGoal, setup } from "@/test/support/goal-fixtures";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

const SHA = (c: string) => c.repeat(40);

describeEngines("goal git-state", (engine) => {
  describe("createBranch", () => {
    it("records a branch made for a goal, off its parent branch, with the event", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const main = await createBranch(f.as(LEAD), { sessionId: "s1", name: "main" });
      const branch = await createBranch(f.as(ORCHESTRATOR), {
        sessionId: "s1",
        name: "goal-1",
        parentBranchId: main.id,
        parentCommitSha: SHA("a"),
        reason: "goal",
        createdByGoalId: goal,
      });
      expect(branch).toMatchObject({
        sessionId: "s1",
        name: "goal-1",
        parentBranchId: main.id,
        parentCommitSha: SHA("a"),
        reason: "goal",
        createdByGoalId: goal,
      });
      expect(await lastEvent(f.db)).toMatchObject({
        type: "branch.created",
        entity: "branch",
        entityId: String(branch.id),
        sessionId: "s1",
        data: { name: "goal-1", parentBranchId: main.id, goalId: goal },
      });
    });

    it("refuses a taken name, another session's parent or goal, and bad input", async () => {
      const f = await setup(await freshLedger(engine));
      await createSession(f.as(ADMIN), { id: "s2" });
      const foreignBranch = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s2", name: "main" });
      const foreignGoal = await rootGoal({ ...f, sessionId: "s2" });
      await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "main" });
      await expectNothingWritten(f.db, async () => createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "main" }), "branch.exists");
      await expectNothingWritten(
        f.db,
        async () => createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "b", parentBranchId: foreignBranch.id }),
        "branch.parent_other_session",
      );
      await expectNothingWritten(
        f.db,
        async () => createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "b", createdByGoalId: foreignGoal }),
        "branch.goal_other_session",
      );
      await expectNothingWritten(f.db, async () => createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "b", parentBranchId: 404 }), "branch.not_found");
      await expectNothingWritten(
        f.db,
        async () => createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "b", parentCommitSha: "not-a-sha" }),
        "branch.invalid_input",
      );
      await expectNothingWritten(f.db, async () => createBranch(f.as(ORCHESTRATOR), { sessionId: "zz", name: "b" }), "session.not_found");
    });
  });

  describe("createWorktree", () => {
    it("records a worktree on a branch, with the event", async () => {
      const f = await setup(await freshLedger(engine));
      const branch = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "goal-1" });
      const worktree = await createWorktree(f.as(AGENT), { branchId: branch.id, path: "/tmp/wt/goal-1-1", startSha: SHA("b"), reason: "attempt" });
      expect(worktree).toMatchObject({ branchId: branch.id, path: "/tmp/wt/goal-1-1", startSha: SHA("b"), reason: "attempt" });
      expect(await lastEvent(f.db)).toMatchObject({
        type: "worktree.created",
        entity: "worktree",
        entityId: String(worktree.id),
        sessionId: "s1",
        data: { branchId: branch.id },
      });
    });

    it("refuses an unknown branch, an empty path and a lead", async () => {
      const f = await setup(await freshLedger(engine));
      const branch = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "goal-1" });
      await expectNothingWritten(f.db, async () => createWorktree(f.as(AGENT), { branchId: 9, path: "/tmp/wt" }), "branch.not_found");
      await expectNothingWritten(f.db, async () => createWorktree(f.as(AGENT), { branchId: branch.id, path: " " }), "worktree.invalid_input");
      await expectRefused(async () => createWorktree(f.as(LEAD), { branchId: branch.id, path: "/tmp/wt" }), "worktree.create_role");
    });
  });

  describe("recordMerge", () => {
    it("records a successful merge between two branches of a session, with the event", async () => {
      const f = await setup(await freshLedger(engine));
      const main = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "main" });
      const goal = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "goal-1", parentBranchId: main.id });
      const merge = await recordMerge(f.as(ORCHESTRATOR), {
        fromBranchId: goal.id,
        fromCommitSha: SHA("1"),
        toBranchId: main.id,
        toCommitSha: SHA("2"),
        resultCommitSha: SHA("3"),
      });
      expect(merge).toMatchObject({ fromBranchId: goal.id, toBranchId: main.id, resultCommitSha: SHA("3") });
      expect(await lastEvent(f.db)).toMatchObject({
        type: "merge.recorded",
        entity: "merge",
        entityId: String(merge.id),
        sessionId: "s1",
        data: { from: "goal-1", to: "main" },
      });
    });

    it("refuses a self-merge, branches of two sessions, unknown branches, bad shas and a lead", async () => {
      const f = await setup(await freshLedger(engine));
      await createSession(f.as(ADMIN), { id: "s2" });
      const main = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "main" });
      const foreign = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s2", name: "main" });
      const shas = { fromCommitSha: SHA("1"), toCommitSha: SHA("2"), resultCommitSha: SHA("3") };
      await expectNothingWritten(
        f.db,
        async () => recordMerge(f.as(ORCHESTRATOR), { ...shas, fromBranchId: main.id, toBranchId: main.id }),
        "merge.same_branch",
      );
      await expectNothingWritten(
        f.db,
        async () => recordMerge(f.as(ORCHESTRATOR), { ...shas, fromBranchId: foreign.id, toBranchId: main.id }),
        "merge.other_session",
      );
      await expectNothingWritten(f.db, async () => recordMerge(f.as(ORCHESTRATOR), { ...shas, fromBranchId: 50, toBranchId: main.id }), "branch.not_found");
      await expectNothingWritten(
        f.db,
        async () => recordMerge(f.as(ORCHESTRATOR), { ...shas, resultCommitSha: "xyz", fromBranchId: foreign.id, toBranchId: main.id }),
        "merge.invalid_input",
      );
      await expectRefused(async () => recordMerge(f.as(LEAD), { ...shas, fromBranchId: foreign.id, toBranchId: main.id }), "merge.record_role");
    });
  });

  describe("getGoal's merges", () => {
    it("lists merges from and into the goal's branches, oldest first, with both names, and none of other goals'", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const other = await rootGoal(f);
      const main = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "main" });
      const mine = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "goal-1", parentBranchId: main.id, createdByGoalId: goal });
      const theirs = await createBranch(f.as(ORCHESTRATOR), { sessionId: "s1", name: "goal-2", parentBranchId: main.id, createdByGoalId: other });
      expect((await getGoal(f.db, { goalId: goal })).merges).toEqual([]);
      await recordMerge(f.as(ORCHESTRATOR), {
        fromBranchId: main.id,
        fromCommitSha: SHA("1"),
        toBranchId: mine.id,
        toCommitSha: SHA("2"),
        resultCommitSha: SHA("3"),
      });
      await recordMerge(f.as(ORCHESTRATOR), {
        fromBranchId: theirs.id,
        fromCommitSha: SHA("4"),
        toBranchId: main.id,
        toCommitSha: SHA("5"),
        resultCommitSha: SHA("6"),
      });
      await recordMerge(f.as(ORCHESTRATOR), {
        fromBranchId: mine.id,
        fromCommitSha: SHA("7"),
        toBranchId: main.id,
        toCommitSha: SHA("8"),
        resultCommitSha: SHA("9"),
      });
      const merges = (await getGoal(f.db, { goalId: goal })).merges;
      expect(merges.map((m) => [m.fromBranch, m.toBranch, m.resultCommitSha])).toEqual([
        ["main", "goal-1", SHA("3")],
        ["goal-1", "main", SHA("9")],
      ]);
      expect((await getGoal(f.db, { goalId: other })).merges.map((m) => [m.fromBranch, m.toBranch])).toEqual([["goal-2", "main"]]);
    });
  });
});
