import { type Db, type DbOrTx, sqliteCodeOf } from "@/db/client";
import { type BlockedTimeFigures, blockedTimeFigures } from "./blocked-time";
import { type CompletionCheckFigures, type UnverifiedCompletionFigures, completionCheckFigures, unverifiedCompletionFigures } from "./completions";
import { type CriteriaFigures, criteriaFigures } from "./criteria";
import { type FalseCompletionFigures, falseCompletionFigures } from "./false-completion";
import { type GoalAttemptFigures, goalAttemptFigures } from "./goal-attempts";
import { type AnalyticsFilter, type AnalyticsInput, parseAnalyticsInput } from "./schemas";
import type { Pause } from "./shape";
import { catchUpReasonKinds, rollupsAnswer } from "./rollups";
import { type RuntimeStopFigures, runtimeStopFigures } from "./runtime-stops";
import { type TokenFigures, tokenFigures } from "./tokens";
import { type VerificationLatencyFigures, verificationLatencyFigures } from "./verification-latency";

/*
 * What each figure counts, and what its filters mean. `source` always means the session's source.
 *
 * | figure                | counts                                                        | time (range, buckets)      | agent                       | model                                   |
 * |-----------------------|---------------------------------------------------------------|----------------------------|-----------------------------|-----------------------------------------|
 * | criteria              | sessions' required criteria met (rollups; verifier wins)      | session start              | —                           | —                                       |
 * | falseCompletion       | claim moves; a claim is "later blocked" when its judgment is a block | the claim's            | claimant                    | claimant's, from `sessions.models`      |
 * | verificationLatency   | claim → verify / block                                        | the claim's                | claimant                    | claimant's, from `sessions.models`      |
 * | blockedTime           | spells in `blocked` (block → approve_reset / reported status) | the spell's start          | claimant the block judged   | that claimant's, from `sessions.models` |
 * | unverifiedCompletions | tasks completed with `verification = 'none'`                  | completion                 | claimant, else assignee     | that agent's, from `sessions.models`    |
 * | completionChecks      | completion_checks rows and their reasons                      | the check's                | who ran it                  | —                                       |
 * | goalAttempts          | implementation attempts (breakdowns apart)                    | the attempt's start        | —                           | the attempt's own                       |
 * | tokens                | token_usage rows                                              | the row's                  | the row's agent id          | the row's own                           |
 * | runtimeStops          | runtime.stop_held / runtime.stop_unverified events, per session | the stop's               | who ran the hook            | —                                       |
 *
 * The claimant's model: tasks and transitions record no model; `token_usage.model` is per token row
 * (and absent in BAZINGA's own schema); a session's `models` maps agent types to the models the
 * orchestrator configured (`{"developer": "claude-sonnet-4.5"}`). A claim's model is that map's
 * entry for the claimant's type (`developer_2` → `developer`), or null ("not recorded").
 */
export interface AnalyticsFigures {
  criteria: CriteriaFigures;
  falseCompletion: FalseCompletionFigures;
  verificationLatency: VerificationLatencyFigures;
  blockedTime: BlockedTimeFigures;
  unverifiedCompletions: UnverifiedCompletionFigures;
  completionChecks: CompletionCheckFigures;
  goalAttempts: GoalAttemptFigures;
  tokens: TokenFigures;
  runtimeStops: RuntimeStopFigures;
}
export type FigureName = keyof AnalyticsFigures;

/**
 * The filters a figure cannot apply, because what it counts has no agent or no model: criteria
 * belong to a session, a completion check has no model, a goal attempt names no agent.
 */
export const UNFILTERABLE: Readonly<Record<FigureName, readonly ("agent" | "model")[]>> = {
  criteria: ["agent", "model"],
  falseCompletion: [],
  verificationLatency: [],
  blockedTime: [],
  unverifiedCompletions: [],
  completionChecks: ["model"],
  goalAttempts: ["agent"],
  tokens: [],
  runtimeStops: ["model"],
};

export interface AnalyticsOverview extends AnalyticsFigures {
  filters: AnalyticsFilter;
  /** For each figure, the filters given that it could not apply (so a page can say so). */
  ignoredFilters: Partial<Record<FigureName, ("agent" | "model")[]>>;
  /** Milliseconds each figure's queries took on the server. */
  timings: Record<FigureName, number>;
}

/** Each figure; a figure made of several heavy queries calls `pause` between them. */
export const FIGURES: { [K in FigureName]: (db: DbOrTx, f: AnalyticsFilter, pause: Pause) => Promise<AnalyticsFigures[K]> } = {
  criteria: criteriaFigures,
  falseCompletion: falseCompletionFigures,
  verificationLatency: verificationLatencyFigures,
  blockedTime: blockedTimeFigures,
  unverifiedCompletions: unverifiedCompletionFigures,
  completionChecks: completionCheckFigures,
  goalAttempts: goalAttemptFigures,
  tokens: tokenFigures,
  runtimeStops: runtimeStopFigures,
};

/**
 * Let the event loop serve other requests: SQLite calls are synchronous, so a long run of them
 * would stall the server. One `setImmediate` is not always enough: scheduled while the loop is
 * in its I/O phase (as the first step of a request is), it runs in the same turn's check phase,
 * before the loop has looked for new I/O again, so a request that arrived during the step waited
 * for two. The second `setImmediate` is scheduled from the check phase, so it runs only after the
 * next I/O phase has served what arrived.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * Classify the rejection reasons of checks written since the last read, a chunk at a time with the
 * event loop let through between chunks. A read-only connection cannot: the figure then reads those
 * checks from the history.
 */
async function catchUpReasons(db: Db): Promise<void> {
  try {
    while (await catchUpReasonKinds(db, 1)) await yieldToEventLoop();
  } catch (error) {
    if (!sqliteCodeOf(error)?.startsWith("SQLITE_READONLY")) throw error;
  }
}

/**
 * Every figure of the analytics page in one call. The figures are computed one after another with
 * the event loop let through before, between and after them (and between the steps of a figure
 * made of several heavy queries), so other requests wait for at most one step, a query or two,
 * never for the whole overview. Each step reads the ledger as it is when its turn comes: a write
 * landing between two steps shows in the later ones only.
 */
export async function analyticsOverview(db: Db, raw: AnalyticsInput = {}, options: { fromHistory?: boolean } = {}): Promise<AnalyticsOverview> {
  const f = { ...parseAnalyticsInput(raw), ...(options.fromHistory && { fromHistory: true }) };
  // The request that asked has just been routed, authenticated and parsed in this same turn.
  await yieldToEventLoop();
  if (rollupsAnswer(f)) await catchUpReasons(db);
  const figures: Partial<AnalyticsFigures> = {};
  const timings = {} as Record<FigureName, number>;
  for (const name of Object.keys(FIGURES) as FigureName[]) {
    let spent = 0;
    let started = performance.now();
    const pause = async () => {
      spent += performance.now() - started;
      await yieldToEventLoop();
      started = performance.now();
    };
    const figure = await FIGURES[name](db, f, pause);
    (figures as Record<FigureName, unknown>)[name] = figure;
    timings[name] = Math.round((spent + performance.now() - started) * 10) / 10;
    await yieldToEventLoop();
  }
  const given = (["agent", "model"] as const).filter((filter) => f[filter] !== null);
  const ignoredFilters = Object.fromEntries(
    Object.entries(UNFILTERABLE)
      .map(([name, cannot]) => [name, given.filter((filter) => cannot.includes(filter))] as const)
      .filter(([, ignored]) => ignored.length > 0),
  );
  return { ...(figures as AnalyticsFigures), filters: f, ignoredFilters, timings };
}
