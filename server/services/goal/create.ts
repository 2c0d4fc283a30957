import { and, eq, isNull, max } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { goals } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ConflictError, ValidationError } from "@/server/domain/errors";
import { loadAttempt } from "../attempt/load";
import { type ServiceContext, appendEvent, nowOf, requireRole, write } from "../context";
import { loadSession } from "../session/load";
import { type GoalRow, loadGoal } from "./load";
import { parseInput } from "../parse-input";
import { PLAN_ROLES } from "./roles";
import { CreateGoalInput } from "./schemas";
import { redactInput } from "../redact-input";

/**
 * Create a goal: a root goal (from the command line), or a sub-goal of a goal in the same session.
 * A `breakdown` sub-goal must name the breakdown attempt on its parent that proposed it (003), so
 * the tree always says which attempt split which goal. `order` defaults to the next sibling number.
 */
export function createGoal(ctx: ServiceContext, unredacted: CreateGoalInput): GoalRow {
  const input = redactInput(unredacted);
  requireRole(ctx, PLAN_ROLES, "goal.create_role", "create goals");
  const data = parseInput(CreateGoalInput, input, "goal.invalid_input");
  const source = data.source ?? (data.createdByAttemptId === undefined ? "cli" : "breakdown");
  return write(ctx, (tx) => {
    loadSession(tx, data.sessionId);
    const parentGoalId = data.parentGoalId ?? null;
    if (parentGoalId !== null && loadGoal(tx, parentGoalId).sessionId !== data.sessionId) {
      throw new ValidationError("parentGoalId", "goal.parent_other_session", `goal ${parentGoalId} belongs to another session`);
    }
    if (source === "breakdown") checkBreakdownOrigin(tx, parentGoalId, data.createdByAttemptId);
    else if (data.createdByAttemptId !== undefined) {
      throw new ValidationError("createdByAttemptId", "goal.created_by_requires_breakdown", "only a breakdown sub-goal names the attempt that created it");
    }
    const siblings = and(eq(goals.sessionId, data.sessionId), parentGoalId === null ? isNull(goals.parentGoalId) : eq(goals.parentGoalId, parentGoalId));
    const order = data.order ?? (tx.select({ last: max(goals.order) }).from(goals).where(siblings).get()?.last ?? 0) + 1;
    if (data.order !== undefined && tx.select({ id: goals.id }).from(goals).where(and(siblings, eq(goals.order, order))).get()) {
      throw new ConflictError("goal.order_taken", `a sibling goal already has order ${order}`);
    }
    const goal = tx
      .insert(goals)
      .values({ sessionId: data.sessionId, goalText: data.goalText, parentGoalId, order, source, createdByAttemptId: data.createdByAttemptId ?? null, timestamp: nowOf(ctx) })
      .returning()
      .get();
    appendEvent(tx, ctx, { type: EVENT_TYPES.goalCreated, sessionId: goal.sessionId, entity: "goal", entityId: goal.id, data: { goalText: goal.goalText, source, parentGoalId } });
    return goal;
  });
}

function checkBreakdownOrigin(tx: Tx, parentGoalId: number | null, attemptId: number | undefined): void {
  if (parentGoalId === null) throw new ValidationError("parentGoalId", "goal.breakdown_requires_parent", "a breakdown goal is a sub-goal: give its parent goal");
  if (attemptId === undefined) throw new ValidationError("createdByAttemptId", "goal.breakdown_requires_attempt", "a breakdown goal names the breakdown attempt that proposed it");
  const { attempt } = loadAttempt(tx, attemptId);
  if (attempt.attemptType !== "breakdown") {
    throw new ValidationError("createdByAttemptId", "goal.created_by_not_breakdown", `attempt ${attemptId} is an ${attempt.attemptType} attempt, not a breakdown`);
  }
  if (attempt.goalId !== parentGoalId) {
    throw new ValidationError("createdByAttemptId", "goal.created_by_other_goal", `attempt ${attemptId} broke down goal ${attempt.goalId}, not the parent goal ${parentGoalId}`);
  }
}
