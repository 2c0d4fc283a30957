import {
  CreatePersonalTokenInput,
  RevokePersonalTokenInput,
  createPersonalToken,
  listPersonalTokens,
  revokePersonalToken,
} from "@/server/services/account/tokens";
import { actionProcedure, router } from "../trpc";

/** The signed-in person's own things: their personal API tokens. */
export const accountRouter = router({
  tokens: actionProcedure("account.tokens").query(async ({ ctx }) => listPersonalTokens(ctx.service)),
  createToken: actionProcedure("account.createToken")
    .input(CreatePersonalTokenInput)
    .mutation(async ({ ctx, input }) => createPersonalToken(ctx.service, input)),
  revokeToken: actionProcedure("account.revokeToken")
    .input(RevokePersonalTokenInput)
    .mutation(async ({ ctx, input }) => revokePersonalToken(ctx.service, input)),
});
