import { queryGet } from "@/db/query";
import { desc, eq } from "drizzle-orm";
import { goalGateEvaluations, trustScores } from "@/db/schema";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { assertMayEvaluate } from "@/server/domain/attempt-lifecycle";
import { evaluateAttempt } from "@/server/domain/two-gate";
import { attemptNumber, findResult, loadAttempt } from "../attempt/load";
import { type ServiceContext, appendEvent, nowOf, write } from "../context";
import { type EvaluationRow, evaluationHistory, goalEvaluations } from "./evaluations";
import { loadContract } from "./load";
import { parseInput } from "../parse-input";
import { EvaluateGoalGateInput } from "./schemas";
import { authorize } from "@/server/domain/permissions";

export interface GoalGateEvaluation extends EvaluationRow {
  /** One line for people, e.g. `Goal criteria not met: 2/3 criteria passed`. */
  summary: string;
}

/**
 * Judge a finished implementation attempt with the two gates (002): the latest trust score a
 * verifier recorded for it, the goal's contract if any, and the evidence stored on its result.
 * The attempt number is its position among the goal's implementation attempts, so the contract's
 * attempt limit turns a miss on the last allowed attempt into BLOCKED. Appends the evaluation.
 * Which attempts may be judged, and when a goal is closed, is the attempt lifecycle's
 * (server/domain/attempt-lifecycle.ts).
 */
export async function evaluateGoalGate(ctx: ServiceContext, input: EvaluateGoalGateInput): Promise<GoalGateEvaluation> {
  authorize(ctx.actor, "goal.evaluate");
  const data = parseInput(EvaluateGoalGateInput, input, "goal_gate.invalid_input");
  return write(ctx, async (tx) => {
    const { attempt, goal } = await loadAttempt(tx, data.attemptId);
    const earlier = await goalEvaluations(tx, goal.id);
    const {
      attemptNumber: number,
      result,
      trust,
    } = assertMayEvaluate({
      id: attempt.id,
      goalId: goal.id,
      attemptNumber: await attemptNumber(tx, attempt),
      result: await findResult(tx, attempt.id),
      trust: await queryGet(tx.select().from(trustScores).where(eq(trustScores.attemptId, attempt.id)).orderBy(desc(trustScores.id)).limit(1)),
      latest: earlier.at(-1),
    });
    const stored = await loadContract(tx, goal.id);
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
      history: await evaluationHistory(tx, goal.id, earlier),
    });
    const row = await queryGet(
      tx
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
        .returning(),
    );
    await appendEvent(tx, ctx, {
      type: EVENT_TYPES.goalGateEvaluated,
      sessionId: goal.sessionId,
      entity: "goal",
      entityId: goal.id,
      data: { verdict: row.verdict, attemptNumber: number, attemptId: attempt.id },
    });
    return { ...row, summary: outcome.goal.summary };
  });
}
