import { getContextPackages } from "@/server/services/log/get-context-packages";
import { getDevelopmentPlan } from "@/server/services/log/get-development-plan";
import { getEvents } from "@/server/services/log/get-events";
import { checkMandatoryPhases, getReasoning } from "@/server/services/log/get-reasoning";
import { getLatestState, getSkillOutput, listSkillOutputs } from "@/server/services/log/get-state";
import { ingestParsedBatch } from "@/server/services/log/ingest-batch";
import { ListLogsPageInput, listLogs } from "@/server/services/log/list-logs";
import { logInteraction } from "@/server/services/log/log-interaction";
import { logTokens } from "@/server/services/log/log-tokens";
import { markContextConsumed } from "@/server/services/log/mark-context-consumed";
import { reasoningTimeline } from "@/server/services/log/reasoning-timeline";
import { saveContextPackage } from "@/server/services/log/save-context-package";
import { saveDecision } from "@/server/services/log/save-decision";
import { saveDevelopmentPlan } from "@/server/services/log/save-development-plan";
import { saveEvent } from "@/server/services/log/save-event";
import { saveReasoning } from "@/server/services/log/save-reasoning";
import { saveSkillOutput } from "@/server/services/log/save-skill-output";
import { saveState } from "@/server/services/log/save-state";
import * as S from "@/server/services/log/schemas";
import { tokenSummary, tokensOverTime } from "@/server/services/log/token-usage";
import { updatePlanProgress } from "@/server/services/log/update-plan-progress";
import { getConsumption, saveConsumption } from "@/server/services/learning/consumption";
import { cleanupErrorPatterns, getErrorPatterns, saveErrorPattern, updateErrorConfidence } from "@/server/services/learning/error-patterns";
import * as L from "@/server/services/learning/schemas";
import { sessionLearning } from "@/server/services/learning/session-learning";
import { extractStrategies, getStrategies, saveStrategy, updateStrategyHelpfulness } from "@/server/services/learning/strategies";
import { authedProcedure, router } from "../trpc";

/** Interactions, reasoning, orchestration events, tokens, state, skill outputs, decisions, plans, context packages. */
export const logRouter = router({
  list: authedProcedure.input(ListLogsPageInput).query(async ({ ctx, input }) => listLogs(ctx.db, input)),
  interaction: authedProcedure.input(S.LogInteractionInput).mutation(async ({ ctx, input }) => logInteraction(ctx.service, input)),
  reasoning: authedProcedure.input(S.SaveReasoningInput).mutation(async ({ ctx, input }) => saveReasoning(ctx.service, input)),
  getReasoning: authedProcedure.input(S.GetReasoningInput).query(async ({ ctx, input }) => getReasoning(ctx.db, input)),
  reasoningTimeline: authedProcedure.input(S.ReasoningTimelineInput).query(async ({ ctx, input }) => reasoningTimeline(ctx.db, input)),
  mandatoryPhases: authedProcedure.input(S.CheckMandatoryPhasesInput).query(async ({ ctx, input }) => checkMandatoryPhases(ctx.db, input)),
  event: authedProcedure.input(S.SaveEventInput).mutation(async ({ ctx, input }) => saveEvent(ctx.service, input)),
  events: authedProcedure.input(S.GetEventsInput).query(async ({ ctx, input }) => getEvents(ctx.db, input)),
  tokens: authedProcedure.input(S.LogTokensInput).mutation(async ({ ctx, input }) => logTokens(ctx.service, input)),
  tokenSummary: authedProcedure.input(S.TokenSummaryInput).query(async ({ ctx, input }) => tokenSummary(ctx.db, input)),
  tokensOverTime: authedProcedure.input(S.TokensOverTimeInput).query(async ({ ctx, input }) => tokensOverTime(ctx.db, input)),
  /** Hundreds of logs, reasoning entries, events and token rows in one call and one transaction. */
  batch: authedProcedure.input(S.IngestBatchInput).mutation(async ({ ctx, input }) => ingestParsedBatch(ctx.service, input)),
  saveState: authedProcedure.input(S.SaveStateInput).mutation(async ({ ctx, input }) => saveState(ctx.service, input)),
  state: authedProcedure.input(S.GetLatestStateInput).query(async ({ ctx, input }) => getLatestState(ctx.db, input)),
  saveSkillOutput: authedProcedure.input(S.SaveSkillOutputInput).mutation(async ({ ctx, input }) => saveSkillOutput(ctx.service, input)),
  skillOutput: authedProcedure.input(S.GetSkillOutputInput).query(async ({ ctx, input }) => getSkillOutput(ctx.db, input)),
  skillOutputs: authedProcedure.input(S.ListSkillOutputsInput).query(async ({ ctx, input }) => listSkillOutputs(ctx.db, input)),
  decision: authedProcedure.input(S.SaveDecisionInput).mutation(async ({ ctx, input }) => saveDecision(ctx.service, input)),
  savePlan: authedProcedure.input(S.SaveDevelopmentPlanInput).mutation(async ({ ctx, input }) => saveDevelopmentPlan(ctx.service, input)),
  planProgress: authedProcedure.input(S.UpdatePlanProgressInput).mutation(async ({ ctx, input }) => updatePlanProgress(ctx.service, input)),
  plan: authedProcedure.input(S.GetDevelopmentPlanInput).query(async ({ ctx, input }) => getDevelopmentPlan(ctx.db, input)),
  saveContextPackage: authedProcedure.input(S.SaveContextPackageInput).mutation(async ({ ctx, input }) => saveContextPackage(ctx.service, input)),
  contextPackages: authedProcedure.input(S.GetContextPackagesInput).query(async ({ ctx, input }) => getContextPackages(ctx.db, input)),
  markContextConsumed: authedProcedure.input(S.MarkContextConsumedInput).mutation(async ({ ctx, input }) => markContextConsumed(ctx.service, input)),
  // BAZINGA's context engineering: error patterns and strategies (per project), consumption (per session).
  saveErrorPattern: authedProcedure.input(L.SaveErrorPatternInput).mutation(async ({ ctx, input }) => saveErrorPattern(ctx.service, input)),
  errorPatterns: authedProcedure.input(L.GetErrorPatternsInput).query(async ({ ctx, input }) => getErrorPatterns(ctx.db, input)),
  updateErrorConfidence: authedProcedure.input(L.UpdateErrorConfidenceInput).mutation(async ({ ctx, input }) => updateErrorConfidence(ctx.service, input)),
  cleanupErrorPatterns: authedProcedure.input(L.CleanupErrorPatternsInput).mutation(async ({ ctx, input }) => cleanupErrorPatterns(ctx.service, input)),
  saveStrategy: authedProcedure.input(L.SaveStrategyInput).mutation(async ({ ctx, input }) => saveStrategy(ctx.service, input)),
  strategies: authedProcedure.input(L.GetStrategiesInput).query(async ({ ctx, input }) => getStrategies(ctx.db, input)),
  updateStrategyHelpfulness: authedProcedure
    .input(L.UpdateStrategyHelpfulnessInput)
    .mutation(async ({ ctx, input }) => updateStrategyHelpfulness(ctx.service, input)),
  extractStrategies: authedProcedure.input(L.ExtractStrategiesInput).mutation(async ({ ctx, input }) => extractStrategies(ctx.service, input)),
  saveConsumption: authedProcedure.input(L.SaveConsumptionInput).mutation(async ({ ctx, input }) => saveConsumption(ctx.service, input)),
  consumption: authedProcedure.input(L.GetConsumptionInput).query(async ({ ctx, input }) => getConsumption(ctx.db, input)),
  /** A session's page: its project's error patterns and strategies. */
  sessionLearning: authedProcedure.input(L.SessionLearningInput).query(async ({ ctx, input }) => sessionLearning(ctx.db, input)),
});
