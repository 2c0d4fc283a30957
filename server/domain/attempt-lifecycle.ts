/**
 * An attempt's life (002, 003): started on an open goal, given tool calls while it runs, finished
 * once, then scored by a verifier who did not record it, validated, and judged by the two gates in
 * attempt order. Every rule about when an attempt may move on lives here, as pure functions over
 * what the service read; each refusal names its rule, like the task machine's.
 */
import { ForbiddenTransitionError, RoleForbiddenError, ValidationError } from "./errors";
import type { TwoGateVerdict } from "./two-gate";

export type AttemptType = "implementation" | "breakdown";

/** The goal's latest two-gate verdict, as the goal gate recorded it. */
export interface LatestVerdict {
  verdict: TwoGateVerdict;
  reason: string;
  attemptNumber: number;
}

/** What deciding whether a goal takes another attempt needs to know. */
export interface GoalAttemptState {
  goalId: number;
  latest: LatestVerdict | undefined;
  /** The contract's attempt limit; null without a contract. */
  maxAttempts: number | null;
  /** Implementation attempts already started on the goal. */
  implementationAttempts: number;
}

/**
 * A goal that succeeded, or that the attempt limit BLOCKED, takes no more implementation attempts
 * (002: "max attempts before BLOCKED"); a breakdown into sub-goals is still allowed. Nor may a
 * contract goal start more implementation attempts than its contract allows.
 */
export function assertMayStartAttempt(goal: GoalAttemptState, attemptType: AttemptType): void {
  if (attemptType === "breakdown") return;
  assertGoalOpen("attempt", goal.goalId, goal.latest);
  if (goal.maxAttempts !== null && goal.implementationAttempts >= goal.maxAttempts) {
    throw new ForbiddenTransitionError(
      "attempt.limit_reached",
      `goal ${goal.goalId} already has ${goal.implementationAttempts} of its ${goal.maxAttempts} allowed attempts: evaluate the last one, or break the goal down`,
    );
  }
}

/** An attempt's own state: whether it has its (one) result yet. */
export interface AttemptState {
  id: number;
  /** The status of its result (`completed`, `error`, …), or null while it runs. */
  resultStatus: string | null;
}

/** A result is recorded once and never replaced (the unique index is the backstop). */
export function assertMayFinish(attempt: AttemptState): void {
  if (attempt.resultStatus !== null) {
    throw new ForbiddenTransitionError(
      "attempt.already_finished",
      `attempt ${attempt.id} already finished (${attempt.resultStatus}); results are never replaced`,
    );
  }
}

/** Once the attempt has a result it is over and takes no more calls. */
export function assertMayRecordToolCalls(attempt: AttemptState): void {
  if (attempt.resultStatus !== null)
    throw new ForbiddenTransitionError("attempt.already_finished", `attempt ${attempt.id} has finished: it takes no more tool calls`);
}

/** A validation run belongs to an attempt result (so there must be one), and runs one of the attempt's own goal's steps. */
export function assertMayRecordValidationRun<R>(
  attempt: { id: number; goalId: number },
  result: R | undefined,
  step: { id: number; goalId: number },
): asserts result is R {
  if (step.goalId !== attempt.goalId) {
    throw new ValidationError(
      "validationStepId",
      "validation_run.step_other_goal",
      `step ${step.id} validates goal ${step.goalId}, not attempt ${attempt.id}'s goal ${attempt.goalId}`,
    );
  }
  if (result === undefined) {
    throw new ForbiddenTransitionError(
      "validation_run.attempt_unfinished",
      `attempt ${attempt.id} has no result yet: validation runs against a finished attempt`,
    );
  }
}

/**
 * A trust score judges a finished attempt's evidence, and never by whoever recorded the attempt
 * (`recordedByScorer`: compared as for task claimants, by agent label and by principal unless it is
 * the shared local operator).
 */
export function assertMayScore(attempt: AttemptState, scorer: { label: string; recordedTheAttempt: boolean }): void {
  if (attempt.resultStatus === null)
    throw new ForbiddenTransitionError("trust_score.attempt_unfinished", `attempt ${attempt.id} has no result yet: there is no evidence to score`);
  if (scorer.recordedTheAttempt) {
    throw new RoleForbiddenError("trust_score.own_attempt", `${scorer.label} recorded attempt ${attempt.id} and may not score its own evidence`);
  }
}

/** What judging an attempt with the two gates needs to know: the attempt, its result and latest trust score if any. */
export interface EvaluationState<R, T> {
  id: number;
  goalId: number;
  /** Its position among the goal's implementation attempts; null for a breakdown attempt. */
  attemptNumber: number | null;
  result: R | undefined;
  trust: T | undefined;
  latest: LatestVerdict | undefined;
}

/**
 * A finished implementation attempt with a trust score may be judged. A goal whose latest verdict
 * is SUCCESS or BLOCKED is closed: the completion gate reads the latest verdict, so evaluating again
 * could silently undo a success or launder an exhausted attempt limit. An attempt may be evaluated
 * again (after a new trust score), but not once a later attempt was: evaluations stay in attempt
 * order, so "latest" means the same by id and by attempt number. Returns what the judgement reads.
 */
export function assertMayEvaluate<R, T>(attempt: EvaluationState<R, T>): { attemptNumber: number; result: R; trust: T } {
  if (attempt.attemptNumber === null) {
    throw new ForbiddenTransitionError(
      "goal_gate.breakdown_attempt",
      `attempt ${attempt.id} is a breakdown: it splits goal ${attempt.goalId}, it does not try to meet it`,
    );
  }
  if (attempt.result === undefined)
    throw new ForbiddenTransitionError("goal_gate.attempt_unfinished", `attempt ${attempt.id} has no result yet: finish it before it is judged`);
  if (attempt.trust === undefined)
    throw new ForbiddenTransitionError("goal_gate.trust_score_required", `no trust score for attempt ${attempt.id}: a verifier must score its evidence first`);
  assertGoalOpen("goal_gate", attempt.goalId, attempt.latest);
  if (attempt.latest && attempt.attemptNumber < attempt.latest.attemptNumber) {
    throw new ForbiddenTransitionError(
      "goal_gate.attempt_superseded",
      `attempt ${attempt.attemptNumber} of goal ${attempt.goalId} was superseded: attempt ${attempt.latest.attemptNumber} is already evaluated`,
    );
  }
  return { attemptNumber: attempt.attemptNumber, result: attempt.result, trust: attempt.trust };
}

/** SUCCESS and BLOCKED close a goal; the rule is named for the move that was refused (`attempt.…`, `goal_gate.…`). */
function assertGoalOpen(scope: "attempt" | "goal_gate", goalId: number, latest: LatestVerdict | undefined): void {
  if (latest?.verdict === "SUCCESS") {
    const message =
      scope === "attempt"
        ? `goal ${goalId} already succeeded: no more attempts are needed`
        : `goal ${goalId} already succeeded (attempt ${latest.attemptNumber})`;
    throw new ForbiddenTransitionError(`${scope}.goal_succeeded`, message);
  }
  if (latest?.verdict === "BLOCKED") {
    const next =
      scope === "attempt" ? "break it down into sub-goals (a breakdown attempt) or escalate to a lead" : "break it down into sub-goals or escalate to a lead";
    throw new ForbiddenTransitionError(`${scope}.goal_blocked`, `goal ${goalId} is BLOCKED (${latest.reason}): ${next}`);
  }
}
