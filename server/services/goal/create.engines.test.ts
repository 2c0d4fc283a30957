import { describe, expect, it } from "vitest";
import { ValidationError } from "@/server/domain/errors";
import { createSession } from "../session/create";
import { createGoal } from "./create";
import {
  ADMIN,
  AGENT,
  ORCHESTRATOR,
  expectNothingWritten,
  expectRefused,
  finishedAttempt,
  lastEvent,
  rootGoal,
  rowCount,
  setup,
} from "@/test/support/goal-fixtures";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("goal create", (engine) => {
  describe("createGoal", () => {
    it("creates root goals from the command line, numbered in order, each with its event", async () => {
      const f = await setup(await freshLedger(engine));
      const first = await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "Migrate to Bazel" });
      const second = await createGoal(f.as(AGENT), { sessionId: "s1", goalText: "Keep tests green" });
      expect(first).toMatchObject({ sessionId: "s1", goalText: "Migrate to Bazel", parentGoalId: null, order: 1, source: "cli", createdByAttemptId: null });
      expect(second.order).toBe(2);
      expect(await lastEvent(f.db)).toMatchObject({
        type: "goal.created",
        entity: "goal",
        entityId: String(second.id),
        sessionId: "s1",
        actor: "developer_1",
        data: { goalText: "Keep tests green", source: "cli", parentGoalId: null },
      });
      expect(await rowCount(f.db, "events")).toBe(3); // session + two goals
    });

    it("numbers sub-goals among their own siblings", async () => {
      const f = await setup(await freshLedger(engine));
      const parent = await rootGoal(f);
      await rootGoal(f, "another root");
      const sub = await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "Port //app", parentGoalId: parent });
      expect(sub).toMatchObject({ parentGoalId: parent, order: 1, source: "cli" });
      expect((await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "Port //lib", parentGoalId: parent })).order).toBe(2);
    });

    it("keeps a caller's order and refuses one a sibling has", async () => {
      const f = await setup(await freshLedger(engine));
      expect((await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "third", order: 3 })).order).toBe(3);
      await expectNothingWritten(f.db, async () => createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "also third", order: 3 }), "goal.order_taken");
      expect((await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "next" })).order).toBe(4);
    });

    it("creates breakdown sub-goals from a breakdown attempt on the parent", async () => {
      const f = await setup(await freshLedger(engine));
      const parent = await rootGoal(f);
      const breakdown = await finishedAttempt(f, parent, { attemptType: "breakdown" });
      const sub = await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "Port //app", parentGoalId: parent, createdByAttemptId: breakdown });
      expect(sub).toMatchObject({ source: "breakdown", createdByAttemptId: breakdown, parentGoalId: parent, order: 1 });
    });

    it("refuses a breakdown goal that does not come from a breakdown attempt on its parent", async () => {
      const f = await setup(await freshLedger(engine));
      const parent = await rootGoal(f);
      const other = await rootGoal(f, "other goal");
      const implementation = await finishedAttempt(f, parent);
      const otherBreakdown = await finishedAttempt(f, other, { attemptType: "breakdown" });
      const base = { sessionId: "s1", goalText: "sub" };
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { ...base, source: "breakdown", createdByAttemptId: otherBreakdown }),
        "goal.breakdown_requires_parent",
      );
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { ...base, parentGoalId: parent, source: "breakdown" }),
        "goal.breakdown_requires_attempt",
      );
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { ...base, parentGoalId: parent, createdByAttemptId: implementation }),
        "goal.created_by_not_breakdown",
      );
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { ...base, parentGoalId: parent, createdByAttemptId: otherBreakdown }),
        "goal.created_by_other_goal",
      );
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { ...base, parentGoalId: parent, source: "cli", createdByAttemptId: otherBreakdown }),
        "goal.created_by_requires_breakdown",
      );
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { ...base, parentGoalId: parent, createdByAttemptId: 999 }),
        "attempt.not_found",
      );
    });

    it("refuses a parent goal from another session", async () => {
      const f = await setup(await freshLedger(engine));
      await createSession(f.as(ADMIN), { id: "s2" });
      const foreign = (await createGoal(f.as(ORCHESTRATOR), { sessionId: "s2", goalText: "elsewhere" })).id;
      await expectNothingWritten(
        f.db,
        async () => createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "sub", parentGoalId: foreign }),
        "goal.parent_other_session",
      );
    });

    it("refuses unknown sessions and parents", async () => {
      const f = await setup(await freshLedger(engine));
      await expectNothingWritten(f.db, async () => createGoal(f.as(ORCHESTRATOR), { sessionId: "nope", goalText: "x" }), "session.not_found");
      await expectNothingWritten(f.db, async () => createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "x", parentGoalId: 42 }), "goal.not_found");
    });

    it.each([
      ["an empty goal", { sessionId: "s1", goalText: "   " }, "goalText"],
      ["a goal over 100k characters", { sessionId: "s1", goalText: "x".repeat(100_001) }, "goalText"],
      ["an unknown field", { sessionId: "s1", goalText: "x", priority: 1 }, "priority"],
      ["a fractional order", { sessionId: "s1", goalText: "x", order: 1.5 }, "order"],
      ["an unknown source", { sessionId: "s1", goalText: "x", source: "magic" }, "source"],
    ])("refuses %s and writes nothing", async (_name, input, field) => {
      const f = await setup(await freshLedger(engine));
      const error = await expectNothingWritten(f.db, async () => createGoal(f.as(ORCHESTRATOR), input as never), "goal.invalid_input");
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe(field);
    });

    it("names the refused role", async () => {
      const f = await setup(await freshLedger(engine));
      await expectRefused(async () => createGoal(f.as({ ...AGENT, role: "viewer" }), { sessionId: "s1", goalText: "x" }), "goal.create_role");
    });
  });
});
