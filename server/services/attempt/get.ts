import { queryAll, queryGet } from "@/db/query";
import { and, asc, eq, gt } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { attemptTools, goalContracts, goalGateEvaluations, toolCalls, tools, trustScores, validationRuns, validationSteps } from "@/db/schema";
import type { EvaluationRow } from "../goal/evaluations";
import { parseInput } from "../parse-input";
import { type AttemptResultRow, type AttemptRow, attemptNumber, findResult, loadAttempt } from "./load";
import type { TrustScoreRow } from "./record-trust-score";
import type { ValidationRunRow } from "./record-validation-run";
import { GetAttemptInput } from "./schemas";
import type { ToolRow } from "./tools";

export type ToolCallRow = typeof toolCalls.$inferSelect;

export const DEFAULT_TOOL_CALL_PAGE = 100;

export interface AttemptDetail {
  attempt: AttemptRow;
  sessionId: string;
  /** 1-based among the goal's implementation attempts; null for a breakdown. */
  number: number | null;
  /** The goal contract's attempt limit; null without a contract. */
  maxAttempts: number | null;
  /** The tools the attempt was given. */
  tools: ToolRow[];
  result: AttemptResultRow | null;
  /** One page of tool calls in order, after `cursor`. */
  toolCalls: ToolCallRow[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: number | null;
  validationRuns: (ValidationRunRow & { stepOrder: number; command: string })[];
  /** Oldest first; the goal gate uses the last. */
  trustScores: TrustScoreRow[];
  evaluations: EvaluationRow[];
}

/** One attempt with its tools, result, a page of tool calls (by order, cursor-paged), validation runs, trust scores and evaluations. */
export async function getAttempt(db: DbOrTx, input: GetAttemptInput): Promise<AttemptDetail> {
  const data = parseInput(GetAttemptInput, input, "attempt.invalid_input");
  const { attempt, goal } = await loadAttempt(db, data.attemptId);
  const limit = data.limit ?? DEFAULT_TOOL_CALL_PAGE;
  const page = await queryAll(
    db
      .select()
      .from(toolCalls)
      .where(and(eq(toolCalls.attemptId, attempt.id), gt(toolCalls.order, data.cursor ?? 0)))
      .orderBy(asc(toolCalls.order))
      .limit(limit + 1),
  );
  const calls = page.slice(0, limit);
  const result = (await findResult(db, attempt.id)) ?? null;
  const runs = result
    ? (
        await queryAll(
          db
            .select({ run: validationRuns, stepOrder: validationSteps.order, command: validationSteps.command })
            .from(validationRuns)
            .innerJoin(validationSteps, eq(validationSteps.id, validationRuns.validationStepId))
            .where(eq(validationRuns.attemptResultId, result.id))
            .orderBy(asc(validationRuns.id)),
        )
      ).map((r) => ({ ...r.run, stepOrder: r.stepOrder, command: r.command }))
    : [];
  return {
    attempt,
    sessionId: goal.sessionId,
    number: await attemptNumber(db, attempt),
    maxAttempts: (await queryGet(db.select({ max: goalContracts.maxGoalAttempts }).from(goalContracts).where(eq(goalContracts.goalId, goal.id))))?.max ?? null,
    tools: (
      await queryAll(
        db
          .select({ tool: tools })
          .from(attemptTools)
          .innerJoin(tools, eq(tools.id, attemptTools.toolId))
          .where(eq(attemptTools.attemptId, attempt.id))
          .orderBy(asc(tools.name)),
      )
    ).map((r) => r.tool),
    result,
    toolCalls: calls,
    nextCursor: page.length > limit ? (calls.at(-1)?.order ?? null) : null,
    validationRuns: runs,
    trustScores: await queryAll(db.select().from(trustScores).where(eq(trustScores.attemptId, attempt.id)).orderBy(asc(trustScores.id))),
    evaluations: await queryAll(
      db.select().from(goalGateEvaluations).where(eq(goalGateEvaluations.attemptId, attempt.id)).orderBy(asc(goalGateEvaluations.id)),
    ),
  };
}
