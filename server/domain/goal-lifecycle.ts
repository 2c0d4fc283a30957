/**
 * A goal's place in the tree (003) and its contract's life (002): a sub-goal stays in its parent's
 * session, a breakdown sub-goal names the breakdown attempt on its parent that proposed it, and a
 * contract may be replaced only until an attempt was judged against it, never by dropping an
 * acceptance criterion. Pure functions over what the service read; each refusal names its rule.
 */
import type { AttemptType } from "./attempt-lifecycle";
import { ForbiddenTransitionError, ValidationError } from "./errors";

export type GoalSource = "cli" | "breakdown";

export interface GoalPlacement {
  sessionId: string;
  source: GoalSource;
  parent: { id: number; sessionId: string } | null;
  /** The attempt the input names as the goal's origin. */
  createdByAttemptId: number | undefined;
}

/**
 * Where a new goal may hang: the parent's session, and for a breakdown a parent and an origin
 * attempt (checked by `assertBreakdownOrigin` once loaded); only a breakdown names its origin.
 */
export function assertGoalPlacement(goal: GoalPlacement): void {
  if (goal.parent !== null && goal.parent.sessionId !== goal.sessionId) {
    throw new ValidationError("parentGoalId", "goal.parent_other_session", `goal ${goal.parent.id} belongs to another session`);
  }
  if (goal.source !== "breakdown") {
    if (goal.createdByAttemptId !== undefined)
      throw new ValidationError("createdByAttemptId", "goal.created_by_requires_breakdown", "only a breakdown sub-goal names the attempt that created it");
    return;
  }
  if (goal.parent === null) throw new ValidationError("parentGoalId", "goal.breakdown_requires_parent", "a breakdown goal is a sub-goal: give its parent goal");
  if (goal.createdByAttemptId === undefined)
    throw new ValidationError("createdByAttemptId", "goal.breakdown_requires_attempt", "a breakdown goal names the breakdown attempt that proposed it");
}

/** A breakdown sub-goal's origin is a breakdown attempt on its own parent goal. */
export function assertBreakdownOrigin(attempt: { id: number; attemptType: AttemptType; goalId: number }, parentGoalId: number): void {
  if (attempt.attemptType !== "breakdown") {
    throw new ValidationError(
      "createdByAttemptId",
      "goal.created_by_not_breakdown",
      `attempt ${attempt.id} is an ${attempt.attemptType} attempt, not a breakdown`,
    );
  }
  if (attempt.goalId !== parentGoalId) {
    throw new ValidationError(
      "createdByAttemptId",
      "goal.created_by_other_goal",
      `attempt ${attempt.id} broke down goal ${attempt.goalId}, not the parent goal ${parentGoalId}`,
    );
  }
}

/** The source a goal gets when the input does not say: a goal naming its origin attempt is a breakdown. */
export function goalSourceOf(source: GoalSource | undefined, createdByAttemptId: number | undefined): GoalSource {
  return source ?? (createdByAttemptId === undefined ? "cli" : "breakdown");
}

/**
 * A contract is frozen once an attempt was evaluated against it (the goalposts do not move after
 * the shot), and acceptance criteria are never deleted: a replacement keeps every key (it may change them).
 */
export function assertContractReplaceable(
  contract: { goalId: number; evaluated: boolean; criterionKeys: readonly string[] },
  nextKeys: readonly string[],
): void {
  if (contract.evaluated) {
    throw new ForbiddenTransitionError(
      "goal_contract.immutable",
      `goal ${contract.goalId}'s contract was used to evaluate an attempt; it can no longer change`,
    );
  }
  const kept = new Set(nextKeys);
  const removed = contract.criterionKeys.filter((key) => !kept.has(key));
  if (removed.length > 0) {
    throw new ForbiddenTransitionError(
      "goal_contract.criterion_removed",
      `acceptance criteria are never deleted: keep ${removed.join(", ")} in the new contract (you may change them)`,
    );
  }
}
