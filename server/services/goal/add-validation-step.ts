import { queryGet } from "@/db/query";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { and, eq, max } from "drizzle-orm";
import { validationSteps } from "@/db/schema";
import { ConflictError } from "@/server/domain/errors";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { AddValidationStepInput } from "./schemas";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

export type ValidationStepRow = typeof validationSteps.$inferSelect;

/**
 * Add a command that checks whether a goal is achieved (exit 0 = passed). Steps run in order;
 * `order` defaults to the next number and a taken one is refused rather than run ambiguously.
 */
export async function addValidationStep(ctx: ServiceContext, unredacted: AddValidationStepInput): Promise<ValidationStepRow> {
  const input = redactInput(unredacted);
  authorize(ctx.actor, "goal.addValidationStep");
  const data = parseInput(AddValidationStepInput, input, "validation_step.invalid_input");
  return write(ctx, async (tx) => {
    const goal = await loadGoal(tx, data.goalId);
    const order =
      data.order ??
      ((
        await queryGet(
          tx
            .select({ last: max(validationSteps.order) })
            .from(validationSteps)
            .where(eq(validationSteps.goalId, goal.id)),
        )
      )?.last ?? 0) + 1;
    if (
      data.order !== undefined &&
      (await queryGet(
        tx
          .select({ id: validationSteps.id })
          .from(validationSteps)
          .where(and(eq(validationSteps.goalId, goal.id), eq(validationSteps.order, order))),
      ))
    ) {
      throw new ConflictError("validation_step.order_taken", `goal ${goal.id} already has a validation step ${order}`);
    }
    // A breakdown goal's steps were proposed by the breakdown too, unless the caller says otherwise.
    const source = data.source ?? goal.source;
    const step = await queryGet(
      tx
        .insert(validationSteps)
        .values({ goalId: goal.id, order, command: data.command, source, timestamp: nowOf(ctx) })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.validationStepAdded,
      sessionId: goal.sessionId,
      entity: "validation_step",
      entityId: step.id,
      data: { goalId: goal.id, order, command: step.command },
    });
    return step;
  });
}
