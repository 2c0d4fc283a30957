import { describe, expect, it } from "vitest";
import { addValidationStep } from "./add-validation-step";
import { createGoal } from "./create";
import { LEAD, ORCHESTRATOR, VERIFIER, expectNothingWritten, expectRefused, finishedAttempt, lastEvent, rootGoal, setup } from "@/test/support/goal-fixtures";
import { describeEngines, ledgerFactory } from "@/test/support/engines";

const freshLedger = ledgerFactory();

describeEngines("goal add-validation-step", (engine) => {
  describe("addValidationStep", () => {
    it("appends steps in order with the goal's source, each with its event", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      const first = await addValidationStep(f.as(LEAD), { goalId: goal, command: "bazel build //..." });
      const second = await addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command: "bazel test //..." });
      expect(first).toMatchObject({ goalId: goal, order: 1, command: "bazel build //...", source: "cli" });
      expect(second.order).toBe(2);
      expect(await lastEvent(f.db)).toMatchObject({
        type: "goal.validation_step_added",
        entity: "validation_step",
        entityId: String(second.id),
        sessionId: "s1",
        data: { goalId: goal, order: 2 },
      });
    });

    it("defaults a breakdown goal's steps to source breakdown", async () => {
      const f = await setup(await freshLedger(engine));
      const parent = await rootGoal(f);
      const breakdown = await finishedAttempt(f, parent, { attemptType: "breakdown" });
      const sub = (await createGoal(f.as(ORCHESTRATOR), { sessionId: "s1", goalText: "Port //app", parentGoalId: parent, createdByAttemptId: breakdown })).id;
      expect((await addValidationStep(f.as(ORCHESTRATOR), { goalId: sub, command: "bazel build //app" })).source).toBe("breakdown");
      expect((await addValidationStep(f.as(ORCHESTRATOR), { goalId: sub, command: "npm test", source: "cli" })).source).toBe("cli");
    });

    it("refuses a taken order, an unknown goal and bad input, writing nothing", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      await addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command: "npm test", order: 2 });
      await expectNothingWritten(
        f.db,
        async () => addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command: "npm run build", order: 2 }),
        "validation_step.order_taken",
      );
      await expectNothingWritten(f.db, async () => addValidationStep(f.as(ORCHESTRATOR), { goalId: 99, command: "npm test" }), "goal.not_found");
      await expectNothingWritten(f.db, async () => addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command: "" }), "validation_step.invalid_input");
      await expectNothingWritten(
        f.db,
        async () => addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command: "x".repeat(100_001) }),
        "validation_step.invalid_input",
      );
    });

    it("is refused to a verifier", async () => {
      const f = await setup(await freshLedger(engine));
      const goal = await rootGoal(f);
      await expectRefused(async () => addValidationStep(f.as(VERIFIER), { goalId: goal, command: "npm test" }), "validation_step.create_role");
    });
  });
});
