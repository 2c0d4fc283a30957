import { queryGet } from "@/db/query";
import { and, eq, isNull, max } from "drizzle-orm";
import { goals } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ConflictError } from "@/server/domain/errors";
import { assertBreakdownOrigin, assertGoalPlacement, goalSourceOf } from "@/server/domain/goal-lifecycle";
import { loadAttempt } from "../attempt/load";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { type GoalRow, loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { CreateGoalInput } from "./schemas";
import { redactInput } from "../redact-input";
import { authorize } from "@/server/domain/permissions";

/**
 * Create a goal: a root goal (from the command line), or a sub-goal of a goal in the same session.
 * A `breakdown` sub-goal must name the breakdown attempt on its parent that proposed it (003), so
 * the tree always says which attempt split which goal. `order` defaults to the next sibling number.
 */
export async function createGoal(ctx: ServiceContext, unredacted: CreateGoalInput): Promise<GoalRow> {
  const input = redactInput(unredacted);
  authorize(ctx.actor, "goal.create");
  const data = parseInput(CreateGoalInput, input, "goal.invalid_input");
  const source = goalSourceOf(data.source, data.createdByAttemptId);
  return write(ctx, async (tx) => {
    await loadSession(tx, data.sessionId);
    const parentGoalId = data.parentGoalId ?? null;
    const parent = parentGoalId === null ? null : await loadGoal(tx, parentGoalId);
    assertGoalPlacement({ sessionId: data.sessionId, source, parent, createdByAttemptId: data.createdByAttemptId });
    if (source === "breakdown") assertBreakdownOrigin((await loadAttempt(tx, data.createdByAttemptId!)).attempt, parentGoalId!);
    const siblings = and(eq(goals.sessionId, data.sessionId), parentGoalId === null ? isNull(goals.parentGoalId) : eq(goals.parentGoalId, parentGoalId));
    const order =
      data.order ??
      ((
        await queryGet(
          tx
            .select({ last: max(goals.order) })
            .from(goals)
            .where(siblings),
        )
      )?.last ?? 0) + 1;
    if (
      data.order !== undefined &&
      (await queryGet(
        tx
          .select({ id: goals.id })
          .from(goals)
          .where(and(siblings, eq(goals.order, order))),
      ))
    ) {
      throw new ConflictError("goal.order_taken", `a sibling goal already has order ${order}`);
    }
    const goal = await queryGet(
      tx
        .insert(goals)
        .values({
          sessionId: data.sessionId,
          goalText: data.goalText,
          parentGoalId,
          order,
          source,
          createdByAttemptId: data.createdByAttemptId ?? null,
          timestamp: nowOf(ctx),
        })
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.goalCreated,
      sessionId: goal.sessionId,
      entity: "goal",
      entityId: goal.id,
      data: { goalText: goal.goalText, source, parentGoalId },
    });
    return goal;
  });
}
