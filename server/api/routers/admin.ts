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
  users: users.query(async ({ ctx }) => listUsers(ctx.db)),
  createUser: users.input(CreateUserInput).mutation(({ ctx, input }) => createUser(ctx.service, input)),
  setUserRole: users.input(SetUserRoleInput).mutation(async ({ ctx, input }) => setUserRole(ctx.service, input)),
  tokens: tokens.query(async ({ ctx }) => listTokens(ctx.db)),
  createToken: tokens.input(CreateTokenInput).mutation(async ({ ctx, input }) => createToken(ctx.service, input)),
  /** Read-only: the configuration, model assignments and workflow tables (settings page). */
  configuration: config.query(async ({ ctx }) => readConfiguration(ctx.service)),
  modelConfig: config.query(async ({ ctx }) => readModelConfig(ctx.service)),
  workflow: config.query(async ({ ctx }) => readWorkflow(ctx.service)),
  revokeToken: tokens.input(RevokeTokenInput).mutation(async ({ ctx, input }) => revokeToken(ctx.service, input)),
  /** Notifications: subscriptions (never their secrets, shown once by createWebhook) and each one's delivery log. */
  webhooks: webhooks.query(async ({ ctx }) => listWebhooks(ctx.service)),
  createWebhook: webhooks.input(CreateWebhookInput).mutation(async ({ ctx, input }) => createWebhook(ctx.service, input)),
  removeWebhook: webhooks.input(WebhookIdInput).mutation(async ({ ctx, input }) => removeWebhook(ctx.service, input)),
  testWebhook: webhooks.input(WebhookIdInput).mutation(async ({ ctx, input }) => testWebhook(ctx.service, input)),
  webhookDeliveries: webhooks.input(WebhookDeliveriesInput).query(async ({ ctx, input }) => listWebhookDeliveries(ctx.service, input)),
});
