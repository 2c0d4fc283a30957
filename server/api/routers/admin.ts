import { readConfiguration, readModelConfig, readWorkflow } from "@/server/services/admin/config";
import { CreateTokenInput, RevokeTokenInput, createToken, listTokens, revokeToken } from "@/server/services/admin/tokens";
import { CreateUserInput, SetUserRoleInput, createUser, listUsers, setUserRole } from "@/server/services/admin/users";
import { createWebhook } from "@/server/services/webhooks/create";
import { listWebhookDeliveries, listWebhooks, removeWebhook, testWebhook } from "@/server/services/webhooks/manage";
import { CreateWebhookInput, WebhookDeliveriesInput, WebhookIdInput } from "@/server/services/webhooks/schemas";
import { actionProcedure, router } from "../trpc";

const users = actionProcedure("admin.users");
const tokens = actionProcedure("admin.tokens");
const config = actionProcedure("admin.config");
const webhooks = actionProcedure("admin.webhooks");

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
  /** Notifications: subscriptions (never their secrets, shown once by createWebhook) and each one's delivery log. */
  webhooks: webhooks.query(({ ctx }) => listWebhooks(ctx.service)),
  createWebhook: webhooks.input(CreateWebhookInput).mutation(({ ctx, input }) => createWebhook(ctx.service, input)),
  removeWebhook: webhooks.input(WebhookIdInput).mutation(({ ctx, input }) => removeWebhook(ctx.service, input)),
  testWebhook: webhooks.input(WebhookIdInput).mutation(({ ctx, input }) => testWebhook(ctx.service, input)),
  webhookDeliveries: webhooks.input(WebhookDeliveriesInput).query(({ ctx, input }) => listWebhookDeliveries(ctx.service, input)),
});
