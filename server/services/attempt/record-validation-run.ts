import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { eq } from "drizzle-orm";
import { validationRuns, validationSteps } from "@/db/schema";
import { assertMayRecordValidationRun } from "@/server/domain/attempt-lifecycle";
import { NotFoundError } from "@/server/domain/errors";
import { redactSecrets } from "@/server/domain/redact";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { parseInput } from "../parse-input";
import { findResult, loadAttempt } from "./load";
import { RecordValidationRunInput } from "./schemas";
import { authorize } from "@/server/domain/permissions";

export type ValidationRunRow = typeof validationRuns.$inferSelect;

/**
 * Record one run of a goal's validation step against a finished attempt (003: a validation run
 * belongs to an attempt result). The step must be one of the attempt's own goal.
 */
export async function recordValidationRun(ctx: ServiceContext, input: RecordValidationRunInput): Promise<ValidationRunRow> {
  authorize(ctx.actor, "attempt.validationRun");
  const data = parseInput(RecordValidationRunInput, input, "validation_run.invalid_input");
  return write(ctx, async (tx) => {
    const { attempt, goal } = await loadAttempt(tx, data.attemptId);
    const step = await queryGet(tx.select().from(validationSteps).where(eq(validationSteps.id, data.validationStepId)));
    if (!step) throw new NotFoundError("validation_step", data.validationStepId);
    const result = await findResult(tx, attempt.id);
    assertMayRecordValidationRun({ id: attempt.id, goalId: goal.id }, result, step);
    const run = await queryGet(
      tx
        .insert(validationRuns)
        .values({
          validationStepId: step.id,
          attemptResultId: result.id,
          exitCode: data.exitCode,
          output: data.output === undefined ? null : redactSecrets(data.output).text,
          timestamp: nowOf(ctx),
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.validationRunRecorded,
      sessionId: goal.sessionId,
      entity: "attempt",
      entityId: attempt.id,
      data: { goalId: goal.id, validationStepId: step.id, runId: run.id, exitCode: run.exitCode, passed: run.exitCode === 0 },
    });
    return run;
  });
}
