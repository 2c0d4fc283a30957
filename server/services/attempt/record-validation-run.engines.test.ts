import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { addValidationStep } from "../goal/add-validation-step";
import { AGENT, ORCHESTRATOR, expectNothingWritten, finishedAttempt, lastEvent, rootGoal, setup } from "@/test/support/goal-fixtures";
import { recordValidationRun } from "./record-validation-run";
import { startAttempt } from "./start";
import { type Engine, describeEngines, ledgerFactory } from "@/test/support/engines";
import { rowsOf } from "@/test/support/rows";

const freshLedger = ledgerFactory();

async function withStep(engine: Engine) {
  const f = await setup(await freshLedger(engine));
  const goal = await rootGoal(f);
  const step = await addValidationStep(f.as(ORCHESTRATOR), { goalId: goal, command: "npm test" });
  return { f, goal, stepId: step.id };
}

describeEngines("attempt record-validation-run", (engine) => {
  describe("recordValidationRun", () => {
    it("records a step's run against the attempt's result, with the event", async () => {
      const { f, goal, stepId } = await withStep(engine);
      const attemptId = await finishedAttempt(f, goal);
      const resultId = (await rowsOf<{ id: number }>(f.db, sql`SELECT id FROM attempt_results WHERE attempt_id = ${attemptId}`))[0]!.id;
      const run = await recordValidationRun(f.as(AGENT), {
        attemptId,
        validationStepId: stepId,
        exitCode: 1,
        output: "FAIL x.test.ts\nAWS AKIAABCDEFGHIJKLMNOP",
      });
      expect(run).toMatchObject({
        validationStepId: stepId,
        attemptResultId: resultId,
        exitCode: 1,
        output: "FAIL x.test.ts\nAWS [REDACTED:aws_access_key_id]",
      });
      expect(await lastEvent(f.db)).toMatchObject({
        type: "attempt.validation_run_recorded",
        entity: "attempt",
        entityId: String(attemptId),
        data: { validationStepId: stepId, runId: run.id, exitCode: 1, passed: false },
      });
    });

    it("refuses a step of another goal, an unfinished attempt and unknown rows, writing nothing", async () => {
      const { f, goal, stepId } = await withStep(engine);
      const otherAttempt = await finishedAttempt(f, await rootGoal(f, "other goal"));
      await expectNothingWritten(
        f.db,
        async () => recordValidationRun(f.as(AGENT), { attemptId: otherAttempt, validationStepId: stepId, exitCode: 0 }),
        "validation_run.step_other_goal",
      );
      const running = (await startAttempt(f.as(ORCHESTRATOR), { goalId: goal })).attempt.id;
      await expectNothingWritten(
        f.db,
        async () => recordValidationRun(f.as(AGENT), { attemptId: running, validationStepId: stepId, exitCode: 0 }),
        "validation_run.attempt_unfinished",
      );
      await expectNothingWritten(
        f.db,
        async () => recordValidationRun(f.as(AGENT), { attemptId: running, validationStepId: 999, exitCode: 0 }),
        "validation_step.not_found",
      );
      await expectNothingWritten(
        f.db,
        async () => recordValidationRun(f.as(AGENT), { attemptId: 999, validationStepId: stepId, exitCode: 0 }),
        "attempt.not_found",
      );
      await expectNothingWritten(
        f.db,
        async () => recordValidationRun(f.as(AGENT), { attemptId: running, validationStepId: stepId, exitCode: 0.5 }),
        "validation_run.invalid_input",
      );
    });
  });
});
