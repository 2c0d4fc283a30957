import { queryAll, queryGet, queryRun } from "@/db/query";
import { desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { webhookDeliveries, webhookSubscriptions } from "@/db/schema";
import { NotFoundError } from "@/server/domain/errors";
import { authorize } from "@/server/domain/permissions";
import { WEBHOOK_TEST_EVENT, webhookHost } from "@/server/domain/webhooks";
import { type ServiceContext, appendEvent, write } from "../context";
import { parseInput } from "../parse-input";
import { WEBHOOK_INVALID_INPUT, WebhookDeliveriesInput, WebhookIdInput } from "./schemas";

/** A subscription as Settings and `webhook list` show it: never its secret. */
export interface WebhookSummary {
  id: number;
  url: string;
  events: string[] | "all";
  format: "json" | "slack";
  sessionSource: string | null;
  createdBy: string;
  createdAt: Date;
  pending: number;
  delivered: number;
  failed: number;
}

export async function listWebhooks(ctx: ServiceContext): Promise<WebhookSummary[]> {
  authorize(ctx.actor, "admin.webhooks", "list webhooks");
  // The outer row named in full: in a one-table select Drizzle writes a column bare (`"id"`), which
  // inside this subquery would be the delivery's own id, not the subscription's.
  const subscriptionId = sql`${sql.identifier("webhook_subscriptions")}.${sql.identifier("id")}`;
  const counts = (status: string) =>
    sql<number>`(SELECT count(*) FROM ${webhookDeliveries} d WHERE d.subscription_id = ${subscriptionId} AND d.status = ${status})`.mapWith(Number);
  return (
    await queryAll(
      ctx.db
        .select({
          id: webhookSubscriptions.id,
          url: webhookSubscriptions.url,
          events: webhookSubscriptions.events,
          allEvents: webhookSubscriptions.allEvents,
          format: webhookSubscriptions.format,
          sessionSource: webhookSubscriptions.sessionSource,
          createdBy: webhookSubscriptions.createdBy,
          createdAt: webhookSubscriptions.createdAt,
          pending: counts("pending"),
          delivered: counts("delivered"),
          failed: counts("failed"),
        })
        .from(webhookSubscriptions)
        .orderBy(desc(webhookSubscriptions.id)),
    )
  ).map(({ allEvents, events, ...row }) => ({ ...row, events: allEvents ? "all" : events }));
}

async function loadSubscription(db: DbOrTx, id: number) {
  const row = await queryGet(db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)));
  if (!row) throw new NotFoundError("webhook", id);
  return row;
}

/** Remove a subscription and its delivery log: nothing more is sent to it, pending deliveries included. */
export async function removeWebhook(ctx: ServiceContext, raw: WebhookIdInput): Promise<{ id: number; removed: true }> {
  authorize(ctx.actor, "admin.webhooks", "remove webhooks");
  const input = parseInput(WebhookIdInput, raw, WEBHOOK_INVALID_INPUT);
  return write(ctx, async (tx) => {
    const row = await loadSubscription(tx, input.id);
    await queryRun(tx.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, row.id)));
    await appendEvent(tx, ctx, { type: "admin.webhook_removed", sessionId: null, entity: "webhook", entityId: row.id, data: { host: webhookHost(row.url) } });
    return { id: row.id, removed: true as const };
  });
}

/**
 * Queue a `webhook.test` delivery to one subscription, through the outbox like any other: it is
 * signed, retried and logged the same way, so a test that arrives proves the whole path.
 */
export async function testWebhook(ctx: ServiceContext, raw: WebhookIdInput): Promise<{ id: number; deliveryId: number }> {
  authorize(ctx.actor, "admin.webhooks", "test webhooks");
  const input = parseInput(WebhookIdInput, raw, WEBHOOK_INVALID_INPUT);
  return write(ctx, async (tx) => {
    const row = await loadSubscription(tx, input.id);
    const eventId = await appendEvent(tx, ctx, {
      type: "admin.webhook_tested",
      sessionId: null,
      entity: "webhook",
      entityId: row.id,
      data: { host: webhookHost(row.url) },
    });
    const delivery = await queryGet(
      tx
        .insert(webhookDeliveries)
        .values({ subscriptionId: row.id, eventId, eventType: WEBHOOK_TEST_EVENT, nextAttemptAt: new Date() })
        .returning({ id: webhookDeliveries.id }),
    );
    return { id: row.id, deliveryId: delivery.id };
  });
}

/** A subscription's delivery log, newest first. */
export async function listWebhookDeliveries(ctx: ServiceContext, raw: WebhookDeliveriesInput) {
  authorize(ctx.actor, "admin.webhooks", "read webhook deliveries");
  const input = parseInput(WebhookDeliveriesInput, raw, WEBHOOK_INVALID_INPUT);
  await loadSubscription(ctx.db, input.id);
  return await queryAll(
    ctx.db
      .select({
        id: webhookDeliveries.id,
        eventId: webhookDeliveries.eventId,
        eventType: webhookDeliveries.eventType,
        status: webhookDeliveries.status,
        attempts: webhookDeliveries.attempts,
        lastError: webhookDeliveries.lastError,
        responseCode: webhookDeliveries.responseCode,
        nextAttemptAt: webhookDeliveries.nextAttemptAt,
        lastAttemptAt: webhookDeliveries.lastAttemptAt,
        deliveredAt: webhookDeliveries.deliveredAt,
        createdAt: webhookDeliveries.createdAt,
      })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, input.id))
      .orderBy(desc(webhookDeliveries.id))
      .limit(input.limit),
  );
}
