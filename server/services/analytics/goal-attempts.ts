import { rawAll, rawGet } from "@/db/query";
import { type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { ATTEMPT_RESULT_STATUSES } from "@/server/domain/vocabulary";
import { equalsIfSet, inRange, inSource } from "./filters";
import { allTime, rollupScope, rollupsAnswer } from "./rollups";
import type { AnalyticsFilter } from "./schemas";
import { rate } from "./shape";

/** An attempt's outcome: its result's status, or `running` while it has none. */
export type AttemptOutcome = (typeof ATTEMPT_RESULT_STATUSES)[number] | "running";
export const ATTEMPT_OUTCOMES: readonly AttemptOutcome[] = [...ATTEMPT_RESULT_STATUSES, "running"];

export interface SuccessRate {
  attempts: number;
  successes: number;
  rate: number | null;
}

export interface GoalAttemptFigures extends SuccessRate {
  /** Success rate of the 1st, 2nd, … implementation attempt at a goal (numbered over all the goal's attempts). */
  byAttemptNumber: (SuccessRate & { attemptNumber: number })[];
  /** By the attempt's model (null: not recorded), most attempts first. */
  byModel: (SuccessRate & { model: string | null })[];
  /** Every outcome, zeros included. */
  outcomes: { outcome: AttemptOutcome; count: number }[];
  /** Goals with at least one implementation attempt in scope, and how many of them one succeeded. */
  goals: number;
  goalsSucceeded: number;
  /** How many goals took 1, 2, … attempts (within the scope). */
  attemptsPerGoal: { attempts: number; goals: number }[];
  /** Breakdown attempts (splitting a goal into sub-goals) are not tries at the goal: counted apart. */
  breakdowns: number;
}

/**
 * Implementation attempts in scope, numbered within their goal: `goal_id`, `attempt_number`,
 * `model`, `outcome`. The number counts all the goal's implementation attempts, so a filter never
 * renumbers them. Time: the attempt's start; model: the attempt's; no agent.
 */
function scopedAttempts(f: AnalyticsFilter): SQL {
  return sql`
    SELECT goal_id, attempt_number, model, outcome FROM (
      SELECT a.goal_id AS goal_id, a.model AS model, a.timestamp AS at, g.session_id AS session_id,
             coalesce((SELECT r.status FROM attempt_results r WHERE r.attempt_id = a.id), 'running') AS outcome,
             row_number() OVER (PARTITION BY a.goal_id ORDER BY a.id) AS attempt_number
      FROM attempts a JOIN goals g ON g.id = a.goal_id
      WHERE a.attempt_type = 'implementation' AND ${inSource(sql`g.session_id`, f)}
    ) AS numbered
    WHERE ${inRange(sql`at`, f)} AND ${equalsIfSet(sql`model`, f.model)}`;
}

/** Goal attempts: success rate by attempt number and by model, attempts per goal, outcomes. */
export async function goalAttemptFigures(db: DbOrTx, f: AnalyticsFilter): Promise<GoalAttemptFigures> {
  // One pass over the attempts feeds both groupings: the scope is materialized once.
  const rollups = rollupsAnswer(f);
  // The rollups hold one row per implementation attempt's (number, goal, model, outcome): the same scope.
  const scope = rollups
    ? sql`SELECT k3 AS goal_id, k2 AS attempt_number, model, k1 AS outcome FROM analytics_rollups WHERE ${rollupScope(["attempt"], f, ["model"])} AND n > 0`
    : scopedAttempts(f);
  const grouped = await rawAll<{
    kind: "attempt" | "goal";
    a: number;
    model: string | null;
    outcome: AttemptOutcome | null;
    count: number;
    succeeded: number | null;
  }>(
    db,
    allTime(f)
      ? sql`
    SELECT 'attempt' AS kind, k2 AS a, model, k1 AS outcome, sum(n) AS count, NULL AS succeeded FROM analytics_rollups
    WHERE ${rollupScope(["attempt_all"], f, [])} GROUP BY 2, 3, 4 HAVING sum(n) > 0
    UNION ALL
    SELECT 'goal', k2, NULL, NULL, sum(n), sum(CASE WHEN k1 = '1' THEN n ELSE 0 END) FROM analytics_rollups
    WHERE ${rollupScope(["goal_hist"], f, [])} GROUP BY 2 HAVING sum(n) > 0`
      : sql`
    WITH scope AS MATERIALIZED (${scope})
    SELECT 'attempt' AS kind, attempt_number AS a, model, outcome, count(*) AS count, NULL AS succeeded FROM scope GROUP BY 2, 3, 4
    UNION ALL
    SELECT 'goal', attempts, NULL, NULL, count(*), sum(succeeded) FROM (
      SELECT goal_id, count(*) AS attempts, max(CASE WHEN outcome = 'success' THEN 1 ELSE 0 END) AS succeeded FROM scope GROUP BY goal_id
    ) AS per_goal GROUP BY 2`,
  );
  const rows = grouped
    .filter((g) => g.kind === "attempt")
    .map((g) => ({ attemptNumber: g.a, model: g.model, outcome: g.outcome as AttemptOutcome, count: g.count }));
  const perGoal = grouped
    .filter((g) => g.kind === "goal")
    .map((g) => ({ attempts: g.a, goals: g.count, succeeded: g.succeeded ?? 0 }))
    .sort((x, y) => x.attempts - y.attempts);
  const breakdowns = await rawGet<{ n: number }>(
    db,
    rollups
      ? sql`SELECT coalesce(sum(n), 0) AS n FROM analytics_rollups WHERE ${rollupScope(["breakdown"], f, ["model"])}`
      : sql`
    SELECT count(*) AS n FROM attempts a JOIN goals g ON g.id = a.goal_id
    WHERE a.attempt_type = 'breakdown' AND ${inRange(sql`a.timestamp`, f)} AND ${equalsIfSet(sql`a.model`, f.model)} AND ${inSource(sql`g.session_id`, f)}`,
  );

  const successRates = <K>(key: (row: (typeof rows)[number]) => K) => {
    const groups = new Map<K, { attempts: number; successes: number }>();
    for (const row of rows) {
      const group = groups.get(key(row)) ?? { attempts: 0, successes: 0 };
      group.attempts += row.count;
      if (row.outcome === "success") group.successes += row.count;
      groups.set(key(row), group);
    }
    return [...groups.entries()].map(([k, g]) => ({ key: k, ...g, rate: rate(g.successes, g.attempts) }));
  };
  const total = successRates(() => "all")[0] ?? { attempts: 0, successes: 0 };
  const outcomes = new Map(successRates((r) => r.outcome).map((g) => [g.key, g.attempts]));
  return {
    attempts: total.attempts,
    successes: total.successes,
    rate: rate(total.successes, total.attempts),
    byAttemptNumber: successRates((r) => r.attemptNumber)
      .map(({ key, ...g }) => ({ attemptNumber: key, ...g }))
      .sort((a, b) => a.attemptNumber - b.attemptNumber),
    byModel: successRates((r) => r.model)
      .map(({ key, ...g }) => ({ model: key, ...g }))
      .sort((a, b) => b.attempts - a.attempts || (a.model ?? "\uffff").localeCompare(b.model ?? "\uffff")),
    outcomes: ATTEMPT_OUTCOMES.map((outcome) => ({ outcome, count: outcomes.get(outcome) ?? 0 })),
    goals: perGoal.reduce((n, g) => n + g.goals, 0),
    goalsSucceeded: perGoal.reduce((n, g) => n + g.succeeded, 0),
    attemptsPerGoal: perGoal.map(({ attempts, goals }) => ({ attempts, goals })),
    breakdowns: breakdowns?.n ?? 0,
  };
}
