import { desc, eq } from "drizzle-orm";
import { goalGateEvaluations, trustScores } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { ForbiddenTransitionError } from "@/server/domain/errors";
import { evaluateAttempt } from "@/server/domain/two-gate";
import { attemptNumber, findResult, loadAttempt } from "../attempt/load";
import { type ServiceContext, appendEvent, nowOf, requireRole, write } from "../context";
import { type EvaluationRow, evaluationHistory, goalEvaluations } from "./evaluations";
import { loadContract } from "./load";
import { parseInput } from "../parse-input";
import { EVALUATE_ROLES } from "./roles";
import { EvaluateGoalGateInput } from "./schemas";

export interface GoalGateEvaluation extends EvaluationRow {
  /** One line for people, e.g. `Goal criteria not met: 2/3 criteria passed`. */
  summary: string;
}

/**
 * Judge a finished implementation attempt with the two gates (002): the latest trust score a
 * verifier recorded for it, the goal's contract if any, and the evidence stored on its result.
 * The attempt number is its position among the goal's implementation attempts, so the contract's
 * attempt limit turns a miss on the last allowed attempt into BLOCKED. Appends the evaluation.
 *
 * A goal whose latest verdict is SUCCESS or BLOCKED is closed: the completion gate reads the latest
 * verdict, so evaluating again could silently undo a success or launder an exhausted attempt limit.
 * An attempt may be evaluated again (after a new trust score), but not once a later attempt was:
 * evaluations stay in attempt order, so "latest" means the same by id and by attempt number.
 */
export function evaluateGoalGate(ctx: ServiceContext, input: EvaluateGoalGateInput): GoalGateEvaluation {
  requireRole(ctx, EVALUATE_ROLES, "goal_gate.evaluate_role", "evaluate the goal gate");
  const data = parseInput(EvaluateGoalGateInput, input, "goal_gate.invalid_input");
  return write(ctx, (tx) => {
    const { attempt, goal } = loadAttempt(tx, data.attemptId);
    const number = attemptNumber(tx, attempt);
    if (number === null) {
      throw new ForbiddenTransitionError("goal_gate.breakdown_attempt", `attempt ${attempt.id} is a breakdown: it splits goal ${goal.id}, it does not try to meet it`);
    }
    const result = findResult(tx, attempt.id);
    if (!result) throw new ForbiddenTransitionError("goal_gate.attempt_unfinished", `attempt ${attempt.id} has no result yet: finish it before it is judged`);
    const trust = tx.select().from(trustScores).where(eq(trustScores.attemptId, attempt.id)).orderBy(desc(trustScores.id)).limit(1).get();
    if (!trust) throw new ForbiddenTransitionError("goal_gate.trust_score_required", `no trust score for attempt ${attempt.id}: a verifier must score its evidence first`);
    const earlier = goalEvaluations(tx, goal.id);
    const latest = earlier.at(-1);
    if (latest?.verdict === "SUCCESS") throw new ForbiddenTransitionError("goal_gate.goal_succeeded", `goal ${goal.id} already succeeded (attempt ${latest.attemptNumber})`);
    if (latest?.verdict === "BLOCKED") {
      throw new ForbiddenTransitionError("goal_gate.goal_blocked", `goal ${goal.id} is BLOCKED (${latest.reason}): break it down into sub-goals or escalate to a lead`);
    }
    if (latest && number < latest.attemptNumber) {
      throw new ForbiddenTransitionError("goal_gate.attempt_superseded", `attempt ${number} of goal ${goal.id} was superseded: attempt ${latest.attemptNumber} is already evaluated`);
    }
    const stored = loadContract(tx, goal.id);
    const outcome = evaluateAttempt({
      contract: stored?.contract ?? null,
      evidence: {
        metrics: result.metrics ?? undefined,
        markers: result.markers ?? undefined,
        artifacts: result.artifacts ?? undefined,
        verifiedFindings: result.verifiedFindings ?? undefined,
        output: result.output ?? undefined,
      },
      trustScore: trust.score,
      attemptNumber: number,
      approach: attempt.model,
      history: evaluationHistory(tx, goal.id, earlier),
    });
    const row = tx
      .insert(goalGateEvaluations)
      .values({
        goalId: goal.id,
        contractId: stored?.row.id ?? null,
        attemptId: attempt.id,
        attemptNumber: number,
        maxAttempts: outcome.maxAttempts,
        trustScore: trust.score,
        trustPassed: outcome.trust.passed,
        goalStatus: outcome.goal.overallStatus,
        metCount: outcome.goal.metCount,
        totalCount: outcome.goal.totalCount,
        criteriaResults: outcome.goal.criteriaResults,
        verdict: outcome.verdict,
        reason: outcome.reason,
        pivot: { ...outcome.pivot },
        actor: ctx.actor.label,
        principalId: ctx.actor.principalId,
        at: nowOf(ctx),
      })
      .returning()
      .get();
    appendEvent(tx, ctx, { type: EVENT_TYPES.goalGateEvaluated, sessionId: goal.sessionId, entity: "goal", entityId: goal.id, data: { verdict: row.verdict, attemptNumber: number, attemptId: attempt.id } });
    return { ...row, summary: outcome.goal.summary };
  });
}
