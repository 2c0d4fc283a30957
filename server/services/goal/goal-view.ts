import { queryAll } from "@/db/query";
import { asc, count, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { acceptanceCriteria, attemptResults, attempts, goalContracts, goalGateEvaluations, goals, toolCalls, trustScores } from "@/db/schema";
import type { AttemptResultStatus } from "@/server/domain/vocabulary";
import type { TwoGateVerdict } from "@/server/domain/two-gate";
import type { AttemptRow } from "../attempt/load";
import type { EvaluationRow } from "./evaluations";
import type { ContractRow, CriterionRow, GoalRow } from "./load";

export interface AttemptSummary {
  id: number;
  attemptType: AttemptRow["attemptType"];
  model: string | null;
  /** 1-based among the goal's implementation attempts; null for a breakdown attempt. */
  number: number | null;
  /** `attempt 2 of 3`, `attempt 2` (no contract, no limit) or `breakdown`. */
  label: string;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  /** The result's status; null while the attempt runs. */
  status: AttemptResultStatus | null;
  toolCallCount: number;
  latestTrustScore: number | null;
  latestEvaluation: EvaluationRow | null;
}

export interface GoalNode {
  goal: GoalRow;
  contract: { row: ContractRow; criteria: CriterionRow[] } | null;
  attempts: AttemptSummary[];
  /** Implementation attempts made so far. */
  attemptsUsed: number;
  /** The contract's limit; null without a contract. */
  maxAttempts: number | null;
  latestEvaluation: EvaluationRow | null;
  /** The latest two-gate verdict; null when never evaluated. */
  verdict: TwoGateVerdict | null;
  children: GoalNode[];
}

/** Every row under a session's goals, one query per table for the whole session rather than per goal. */
async function sessionRows(db: DbOrTx, sessionId: string) {
  const inSession = eq(goals.sessionId, sessionId);
  const ofGoal = eq(goals.id, attempts.goalId);
  return {
    goals: await queryAll(db.select().from(goals).where(inSession).orderBy(asc(goals.order), asc(goals.id))),
    attempts: await queryAll(db.select({ row: attempts }).from(attempts).innerJoin(goals, ofGoal).where(inSession).orderBy(asc(attempts.id))),
    results: await queryAll(
      db
        .select({ attemptId: attemptResults.attemptId, status: attemptResults.status, at: attemptResults.timestamp })
        .from(attemptResults)
        .innerJoin(attempts, eq(attempts.id, attemptResults.attemptId))
        .innerJoin(goals, ofGoal)
        .where(inSession),
    ),
    callCounts: await queryAll(
      db
        .select({ attemptId: toolCalls.attemptId, n: count() })
        .from(toolCalls)
        .innerJoin(attempts, eq(attempts.id, toolCalls.attemptId))
        .innerJoin(goals, ofGoal)
        .where(inSession)
        .groupBy(toolCalls.attemptId),
    ),
    trustScores: await queryAll(
      db
        .select({ attemptId: trustScores.attemptId, score: trustScores.score })
        .from(trustScores)
        .innerJoin(attempts, eq(attempts.id, trustScores.attemptId))
        .innerJoin(goals, ofGoal)
        .where(inSession)
        .orderBy(asc(trustScores.id)),
    ),
    contracts: await queryAll(db.select({ row: goalContracts }).from(goalContracts).innerJoin(goals, eq(goals.id, goalContracts.goalId)).where(inSession)),
    criteria: await queryAll(
      db
        .select({ row: acceptanceCriteria })
        .from(acceptanceCriteria)
        .innerJoin(goalContracts, eq(goalContracts.id, acceptanceCriteria.contractId))
        .innerJoin(goals, eq(goals.id, goalContracts.goalId))
        .where(inSession)
        .orderBy(asc(acceptanceCriteria.position), asc(acceptanceCriteria.id)),
    ),
    evaluations: await queryAll(
      db
        .select({ row: goalGateEvaluations })
        .from(goalGateEvaluations)
        .innerJoin(goals, eq(goals.id, goalGateEvaluations.goalId))
        .where(inSession)
        .orderBy(asc(goalGateEvaluations.id)),
    ),
  };
}

/** Every goal of a session as a forest: roots in order, each with its contract, attempts, evaluations and sub-goals. */
export async function loadGoalForest(db: DbOrTx, sessionId: string): Promise<GoalNode[]> {
  const rows = await sessionRows(db, sessionId);
  const results = new Map(rows.results.map((r) => [r.attemptId, r]));
  const callCounts = new Map(rows.callCounts.map((r) => [r.attemptId, r.n]));
  const latestTrust = new Map(rows.trustScores.map((r) => [r.attemptId, r.score])); // ordered by id: the last wins
  const criteria = new Map<number, CriterionRow[]>();
  for (const { row } of rows.criteria) criteria.set(row.contractId, [...(criteria.get(row.contractId) ?? []), row]);
  const contracts = new Map(rows.contracts.map(({ row }) => [row.goalId, { row, criteria: criteria.get(row.id) ?? [] }]));

  const nodes = new Map<number, GoalNode>();
  for (const goal of rows.goals) {
    const contract = contracts.get(goal.id) ?? null;
    nodes.set(goal.id, {
      goal,
      contract,
      attempts: [],
      attemptsUsed: 0,
      maxAttempts: contract?.row.maxGoalAttempts ?? null,
      latestEvaluation: null,
      verdict: null,
      children: [],
    });
  }
  const latestByAttempt = new Map<number, EvaluationRow>();
  for (const { row } of rows.evaluations) {
    const node = nodes.get(row.goalId)!;
    node.latestEvaluation = row;
    node.verdict = row.verdict;
    if (row.attemptId !== null) latestByAttempt.set(row.attemptId, row);
  }
  for (const { row: attempt } of rows.attempts) {
    const node = nodes.get(attempt.goalId)!;
    const number = attempt.attemptType === "implementation" ? ++node.attemptsUsed : null;
    const result = results.get(attempt.id);
    node.attempts.push({
      id: attempt.id,
      attemptType: attempt.attemptType,
      model: attempt.model,
      number,
      label: number === null ? "breakdown" : node.maxAttempts === null ? `attempt ${number}` : `attempt ${number} of ${node.maxAttempts}`,
      startedAt: attempt.timestamp,
      finishedAt: result?.at ?? null,
      durationMs: result ? result.at.getTime() - attempt.timestamp.getTime() : null,
      status: result?.status ?? null,
      toolCallCount: callCounts.get(attempt.id) ?? 0,
      latestTrustScore: latestTrust.get(attempt.id) ?? null,
      latestEvaluation: latestByAttempt.get(attempt.id) ?? null,
    });
  }
  const roots: GoalNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.goal.parentGoalId === null ? undefined : nodes.get(node.goal.parentGoalId);
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** The node of `goalId` anywhere in the forest. */
export function findNode(forest: readonly GoalNode[], goalId: number): GoalNode | undefined {
  for (const node of forest) {
    if (node.goal.id === goalId) return node;
    const found = findNode(node.children, goalId);
    if (found) return found;
  }
  return undefined;
}
