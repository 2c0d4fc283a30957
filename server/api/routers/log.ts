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
  list: authedProcedure.input(ListLogsPageInput).query(({ ctx, input }) => listLogs(ctx.db, input)),
  interaction: authedProcedure.input(S.LogInteractionInput).mutation(({ ctx, input }) => logInteraction(ctx.service, input)),
  reasoning: authedProcedure.input(S.SaveReasoningInput).mutation(({ ctx, input }) => saveReasoning(ctx.service, input)),
  getReasoning: authedProcedure.input(S.GetReasoningInput).query(({ ctx, input }) => getReasoning(ctx.db, input)),
  reasoningTimeline: authedProcedure.input(S.ReasoningTimelineInput).query(({ ctx, input }) => reasoningTimeline(ctx.db, input)),
  mandatoryPhases: authedProcedure.input(S.CheckMandatoryPhasesInput).query(({ ctx, input }) => checkMandatoryPhases(ctx.db, input)),
  event: authedProcedure.input(S.SaveEventInput).mutation(({ ctx, input }) => saveEvent(ctx.service, input)),
  events: authedProcedure.input(S.GetEventsInput).query(({ ctx, input }) => getEvents(ctx.db, input)),
  tokens: authedProcedure.input(S.LogTokensInput).mutation(({ ctx, input }) => logTokens(ctx.service, input)),
  tokenSummary: authedProcedure.input(S.TokenSummaryInput).query(({ ctx, input }) => tokenSummary(ctx.db, input)),
  tokensOverTime: authedProcedure.input(S.TokensOverTimeInput).query(({ ctx, input }) => tokensOverTime(ctx.db, input)),
  /** Hundreds of logs, reasoning entries, events and token rows in one call and one transaction. */
  batch: authedProcedure.input(S.IngestBatchInput).mutation(({ ctx, input }) => ingestParsedBatch(ctx.service, input)),
  saveState: authedProcedure.input(S.SaveStateInput).mutation(({ ctx, input }) => saveState(ctx.service, input)),
  state: authedProcedure.input(S.GetLatestStateInput).query(({ ctx, input }) => getLatestState(ctx.db, input)),
  saveSkillOutput: authedProcedure.input(S.SaveSkillOutputInput).mutation(({ ctx, input }) => saveSkillOutput(ctx.service, input)),
  skillOutput: authedProcedure.input(S.GetSkillOutputInput).query(({ ctx, input }) => getSkillOutput(ctx.db, input)),
  skillOutputs: authedProcedure.input(S.ListSkillOutputsInput).query(({ ctx, input }) => listSkillOutputs(ctx.db, input)),
  decision: authedProcedure.input(S.SaveDecisionInput).mutation(({ ctx, input }) => saveDecision(ctx.service, input)),
  savePlan: authedProcedure.input(S.SaveDevelopmentPlanInput).mutation(({ ctx, input }) => saveDevelopmentPlan(ctx.service, input)),
  planProgress: authedProcedure.input(S.UpdatePlanProgressInput).mutation(({ ctx, input }) => updatePlanProgress(ctx.service, input)),
  plan: authedProcedure.input(S.GetDevelopmentPlanInput).query(({ ctx, input }) => getDevelopmentPlan(ctx.db, input)),
  saveContextPackage: authedProcedure.input(S.SaveContextPackageInput).mutation(({ ctx, input }) => saveContextPackage(ctx.service, input)),
  contextPackages: authedProcedure.input(S.GetContextPackagesInput).query(({ ctx, input }) => getContextPackages(ctx.db, input)),
  markContextConsumed: authedProcedure.input(S.MarkContextConsumedInput).mutation(({ ctx, input }) => markContextConsumed(ctx.service, input)),
  // BAZINGA's context engineering: error patterns and strategies (per project), consumption (per session).
  saveErrorPattern: authedProcedure.input(L.SaveErrorPatternInput).mutation(({ ctx, input }) => saveErrorPattern(ctx.service, input)),
  errorPatterns: authedProcedure.input(L.GetErrorPatternsInput).query(({ ctx, input }) => getErrorPatterns(ctx.db, input)),
  updateErrorConfidence: authedProcedure.input(L.UpdateErrorConfidenceInput).mutation(({ ctx, input }) => updateErrorConfidence(ctx.service, input)),
  cleanupErrorPatterns: authedProcedure.input(L.CleanupErrorPatternsInput).mutation(({ ctx, input }) => cleanupErrorPatterns(ctx.service, input)),
  saveStrategy: authedProcedure.input(L.SaveStrategyInput).mutation(({ ctx, input }) => saveStrategy(ctx.service, input)),
  strategies: authedProcedure.input(L.GetStrategiesInput).query(({ ctx, input }) => getStrategies(ctx.db, input)),
  updateStrategyHelpfulness: authedProcedure
    .input(L.UpdateStrategyHelpfulnessInput)
    .mutation(({ ctx, input }) => updateStrategyHelpfulness(ctx.service, input)),
  extractStrategies: authedProcedure.input(L.ExtractStrategiesInput).mutation(({ ctx, input }) => extractStrategies(ctx.service, input)),
  saveConsumption: authedProcedure.input(L.SaveConsumptionInput).mutation(({ ctx, input }) => saveConsumption(ctx.service, input)),
  consumption: authedProcedure.input(L.GetConsumptionInput).query(({ ctx, input }) => getConsumption(ctx.db, input)),
  /** A session's page: its project's error patterns and strategies. */
  sessionLearning: authedProcedure.input(L.SessionLearningInput).query(({ ctx, input }) => sessionLearning(ctx.db, input)),
});
