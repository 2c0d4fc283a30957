import { z } from "zod";
import { checkCompletion, listCompletionChecks } from "@/server/services/completion/check";
import { previewCompletion } from "@/server/services/completion/preview";
import { CheckCompletionInput, PreviewCompletionInput } from "@/server/services/completion/schemas";
import { SessionId } from "@/server/services/schemas-common";
import { authedProcedure, router } from "../trpc";

export const completionRouter = router({
  check: authedProcedure
    .input(CheckCompletionInput)
    .mutation(({ ctx, input }) => checkCompletion(ctx.service, input)),
  list: authedProcedure
    .input(z.object({ sessionId: SessionId, limit: z.number().int().min(1).max(500).optional() }).strict())
    .query(({ ctx, input }) => listCompletionChecks(ctx.db, input)),
  /** The gate's current verdict and reasons, without recording a check (the session header). */
  preview: authedProcedure.input(PreviewCompletionInput).query(({ ctx, input }) => previewCompletion(ctx.db, input)),
});
