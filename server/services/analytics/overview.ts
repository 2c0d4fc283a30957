import type { DbOrTx } from "@/db/client";
import { type BlockedTimeFigures, blockedTimeFigures } from "./blocked-time";
import { type CompletionCheckFigures, type UnverifiedCompletionFigures, completionCheckFigures, unverifiedCompletionFigures } from "./completions";
import { type CriteriaFigures, criteriaFigures } from "./criteria";
import { type FalseCompletionFigures, falseCompletionFigures } from "./false-completion";
import { type GoalAttemptFigures, goalAttemptFigures } from "./goal-attempts";
import { type AnalyticsFilter, type AnalyticsInput, parseAnalyticsInput } from "./schemas";
import { type TokenFigures, tokenFigures } from "./tokens";
import { type VerificationLatencyFigures, verificationLatencyFigures } from "./verification-latency";

export interface AnalyticsFigures {
  criteria: CriteriaFigures;
  falseCompletion: FalseCompletionFigures;
  verificationLatency: VerificationLatencyFigures;
  blockedTime: BlockedTimeFigures;
  unverifiedCompletions: UnverifiedCompletionFigures;
  completionChecks: CompletionCheckFigures;
  goalAttempts: GoalAttemptFigures;
  tokens: TokenFigures;
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
};

export interface AnalyticsOverview extends AnalyticsFigures {
  filters: AnalyticsFilter;
  /** For each figure, the filters given that it could not apply (so a page can say so). */
  ignoredFilters: Partial<Record<FigureName, ("agent" | "model")[]>>;
  /** Milliseconds each figure's queries took on the server. */
  timings: Record<FigureName, number>;
}

const FIGURES: { [K in FigureName]: (db: DbOrTx, f: AnalyticsFilter) => AnalyticsFigures[K] } = {
  criteria: criteriaFigures,
  falseCompletion: falseCompletionFigures,
  verificationLatency: verificationLatencyFigures,
  blockedTime: blockedTimeFigures,
  unverifiedCompletions: unverifiedCompletionFigures,
  completionChecks: completionCheckFigures,
  goalAttempts: goalAttemptFigures,
  tokens: tokenFigures,
};

/** Let the event loop serve other requests: SQLite calls are synchronous, so a long run of them would stall the server. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Every figure of the analytics page in one call. The figures are computed one after another with
 * the event loop let through between them, so other requests wait for at most one figure's query,
 * never for the whole overview. Each figure reads the ledger as it is when its turn comes: a write
 * landing between two figures shows in the later ones only.
 */
export async function analyticsOverview(db: DbOrTx, raw: AnalyticsInput = {}): Promise<AnalyticsOverview> {
  const f = parseAnalyticsInput(raw);
  const figures: Partial<AnalyticsFigures> = {};
  const timings = {} as Record<FigureName, number>;
  for (const name of Object.keys(FIGURES) as FigureName[]) {
    const started = performance.now();
    (figures as Record<FigureName, unknown>)[name] = FIGURES[name](db, f);
    timings[name] = Math.round((performance.now() - started) * 10) / 10;
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
