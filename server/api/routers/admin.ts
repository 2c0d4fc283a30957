import { readConfiguration, readModelConfig, readWorkflow } from "@/server/services/admin/config";
import { CreateTokenInput, RevokeTokenInput, createToken, listTokens, revokeToken } from "@/server/services/admin/tokens";
import { CreateUserInput, SetUserRoleInput, createUser, listUsers, setUserRole } from "@/server/services/admin/users";
import { actionProcedure, router } from "../trpc";

const users = actionProcedure("admin.users");
const tokens = actionProcedure("admin.tokens");
const config = actionProcedure("admin.config");

export const adminRouter = router({
  users: users.query(({ ctx }) => listUsers(ctx.db)),
  createUser: users.input(CreateUserInput).mutation(({ ctx, input }) => createUser(ctx.service, input)),
  setUserRole: users.input(SetUserRoleInput).mutation(({ ctx, input }) => setUserRole(ctx.service, input)),
  tokens: tokens.query(({ ctx }) => listTokens(ctx.db)),
  createToken: tokens.input(CreateTokenInput).mutation(({ ctx, input }) => createToken(ctx.service, input)),
  /** Read-only: the configuration, model assignments and workflow tables (settings page). */
  configuration: config.query(({ ctx }) => readConfiguration(ctx.service)),
  modelConfig: config.query(({ ctx }) => readModelConfig(ctx.service)),
  workflow: config.query(({ ctx }) => readWorkflow(ctx.service)),
  revokeToken: tokens.input(RevokeTokenInput).mutation(({ ctx, input }) => revokeToken(ctx.service, input)),
});
