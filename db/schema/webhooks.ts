import { sql } from "drizzle-orm";
import { check, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, inList, timestampMs } from "./columns";
import { DELIVERY_STATUSES, WEBHOOK_FORMATS } from "@/server/domain/webhooks";
import { SESSION_SOURCES } from "@/server/domain/vocabulary";

/**
 * Where notifications go: a receiver's URL, the events it asked for (or all), optionally one
 * session source, and its signing secret — encrypted with a key derived from the instance's auth
 * secret, which is kept outside the database file (server/services/webhooks/secret-box.ts).
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    url: text("url").notNull(),
    /** The webhook events it wants (server/domain/webhooks.ts); ignored when `allEvents`. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    allEvents: integer("all_events", { mode: "boolean" }).notNull().default(false),
    format: text("format", { enum: WEBHOOK_FORMATS }).notNull().default("json"),
    /** Only events of sessions from this source; null: every session (and events of no session). */
    sessionSource: text("session_source", { enum: SESSION_SOURCES }),
    /** AES-256-GCM of the whsec_ secret: `v1.<iv>.<tag>.<ciphertext>`, base64url. */
    secretSealed: text("secret_sealed").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check("webhook_subscriptions_format_check", sql`${t.format} in (${inList(WEBHOOK_FORMATS)})`),
    check("webhook_subscriptions_session_source_check", sql`${t.sessionSource} is null or ${t.sessionSource} in (${inList(SESSION_SOURCES)})`),
  ],
);

/**
 * The outbox: one row per (subscription, event) to deliver, inserted in the transaction that
 * appends the event, so a crash loses none. A dispatcher claims due rows with a lease (owner and
 * expiry), so two server processes never deliver one row at once, and records each attempt.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    subscriptionId: integer("subscription_id")
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    /** The `events` row reported (no foreign key: events are never slowed or blocked by this). */
    eventId: integer("event_id").notNull(),
    /** The webhook event name (`task.blocked`, `webhook.test`…). */
    eventType: text("event_type").notNull(),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestampMs("next_attempt_at").notNull(),
    leaseOwner: text("lease_owner"),
    leaseUntil: timestampMs("lease_until"),
    lastError: text("last_error"),
    responseCode: integer("response_code"),
    lastAttemptAt: timestampMs("last_attempt_at"),
    deliveredAt: timestampMs("delivered_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_subscription_id_id_idx").on(t.subscriptionId, t.id),
    check("webhook_deliveries_status_check", sql`${t.status} in (${inList(DELIVERY_STATUSES)})`),
  ],
);
