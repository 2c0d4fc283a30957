import { checkCompletion, listCompletionChecks } from "@/server/services/completion/check";
import { previewCompletion } from "@/server/services/completion/preview";
import { CheckCompletionInput, ListCompletionChecksInput, PreviewCompletionInput } from "@/server/services/completion/schemas";
import { authedProcedure, router } from "../trpc";

export const completionRouter = router({
  check: authedProcedure.input(CheckCompletionInput).mutation(async ({ ctx, input }) => checkCompletion(ctx.service, input)),
  list: authedProcedure.input(ListCompletionChecksInput).query(async ({ ctx, input }) => listCompletionChecks(ctx.db, input)),
  /** The gate's current verdict and reasons, without recording a check (the session header). */
  preview: authedProcedure.input(PreviewCompletionInput).query(async ({ ctx, input }) => previewCompletion(ctx.db, input)),
});
