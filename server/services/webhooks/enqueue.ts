import { sql } from "drizzle-orm";
import { type DbOrTx, connectionOf, engineOf } from "@/db/client";
import { rawRun } from "@/db/query";
import { prepared } from "@/db/prepared";
import { webhookEventOf } from "@/server/domain/webhooks";

/**
 * The outbox rows an appended event owes: one pending delivery per subscription that wants it (its
 * events, or all; its session source, or any). Called by both ways an event is appended, inside
 * the event's transaction, so the event and its deliveries commit or vanish together. An event no
 * subscription can want (most of them: logs, claims…) costs a map lookup and nothing else; one that
 * can costs one INSERT … SELECT, whatever the number of subscriptions. Nothing here waits on a receiver.
 */
export async function enqueueWebhookDeliveries(
  tx: DbOrTx,
  eventId: number | bigint,
  type: string,
  sessionId: string | null,
  data: Record<string, unknown> | null | undefined,
): Promise<void> {
  if (engineOf(tx) !== "postgres") return enqueueWebhookDeliveriesSync(tx, eventId, type, sessionId, data);
  const kind = webhookEventOf(type, data);
  if (!kind) return;
  await rawRun(
    tx,
    sql`INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, status, attempts, next_attempt_at)
      SELECT s.id, ${Number(eventId)}, ${kind}, 'pending', 0, ${Date.now()} FROM webhook_subscriptions s
      WHERE (s.all_events OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(s.events::jsonb) AS e(value) WHERE e.value = ${kind}))
        AND (s.session_source IS NULL OR s.session_source = (SELECT source FROM sessions WHERE id = ${sessionId}))`,
  );
}

/** `enqueueWebhookDeliveries` on SQLite, where it never awaits: for an action of `writeSync` (services/context.ts). */
export function enqueueWebhookDeliveriesSync(
  tx: DbOrTx,
  eventId: number | bigint,
  type: string,
  sessionId: string | null,
  data: Record<string, unknown> | null | undefined,
): void {
  const kind = webhookEventOf(type, data);
  if (!kind) return;
  const sqlite = connectionOf(tx);
  const insert = prepared(tx, "webhooks.enqueue", () =>
    sqlite.prepare(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, status, attempts, next_attempt_at)
       SELECT s.id, @eventId, @kind, 'pending', 0, @now FROM webhook_subscriptions s
       WHERE (s.all_events = 1 OR EXISTS (SELECT 1 FROM json_each(s.events) WHERE value = @kind))
         AND (s.session_source IS NULL OR s.session_source = (SELECT source FROM sessions WHERE id = @sessionId))`,
    ),
  );
  insert.run({ eventId, kind, now: Date.now(), sessionId });
}
