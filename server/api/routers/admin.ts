import { readConfiguration, readModelConfig, readWorkflow } from "@/server/services/admin/config";
import { CreateTokenInput, RevokeTokenInput, createToken, listTokens, revokeToken } from "@/server/services/admin/tokens";
import { CreateUserInput, SetUserRoleInput, createUser, listUsers, setUserRole } from "@/server/services/admin/users";
import { roleProcedure, router } from "../trpc";

const adminProcedure = roleProcedure(["admin"]);

export const adminRouter = router({
  users: adminProcedure.query(({ ctx }) => listUsers(ctx.db)),
  createUser: adminProcedure.input(CreateUserInput).mutation(({ ctx, input }) => createUser(ctx.service, input)),
  setUserRole: adminProcedure.input(SetUserRoleInput).mutation(({ ctx, input }) => setUserRole(ctx.service, input)),
  tokens: adminProcedure.query(({ ctx }) => listTokens(ctx.db)),
  createToken: adminProcedure.input(CreateTokenInput).mutation(({ ctx, input }) => createToken(ctx.service, input)),
  /** Read-only: the configuration, model assignments and workflow tables (settings page). */
  configuration: adminProcedure.query(({ ctx }) => readConfiguration(ctx.service)),
  modelConfig: adminProcedure.query(({ ctx }) => readModelConfig(ctx.service)),
  workflow: adminProcedure.query(({ ctx }) => readWorkflow(ctx.service)),
  revokeToken: adminProcedure.input(RevokeTokenInput).mutation(({ ctx, input }) => revokeToken(ctx.service, input)),
});
