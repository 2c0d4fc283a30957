import { finishAttempt } from "@/server/services/attempt/finish";
import { getAttempt } from "@/server/services/attempt/get";
import { recordToolCalls } from "@/server/services/attempt/record-tool-calls";
import { recordTrustScore } from "@/server/services/attempt/record-trust-score";
import { recordValidationRun } from "@/server/services/attempt/record-validation-run";
import * as S from "@/server/services/attempt/schemas";
import { startAttempt } from "@/server/services/attempt/start";
import { authedProcedure, router } from "../trpc";

/** Attempts at a goal: start, tool calls (batched), result with goal-gate evidence, validation runs, trust scores. */
export const attemptRouter = router({
  get: authedProcedure.input(S.GetAttemptInput).query(async ({ ctx, input }) => getAttempt(ctx.db, input)),
  start: authedProcedure.input(S.StartAttemptInput).mutation(async ({ ctx, input }) => startAttempt(ctx.service, input)),
  toolCalls: authedProcedure.input(S.RecordToolCallsInput).mutation(async ({ ctx, input }) => recordToolCalls(ctx.service, input)),
  finish: authedProcedure.input(S.FinishAttemptInput).mutation(async ({ ctx, input }) => finishAttempt(ctx.service, input)),
  validationRun: authedProcedure.input(S.RecordValidationRunInput).mutation(async ({ ctx, input }) => recordValidationRun(ctx.service, input)),
  trustScore: authedProcedure.input(S.RecordTrustScoreInput).mutation(async ({ ctx, input }) => recordTrustScore(ctx.service, input)),
});
