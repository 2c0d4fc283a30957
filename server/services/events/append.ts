import { boundAll, driverValues, prepared } from "@/db/prepared";
import { events } from "@/db/schema";
import { type EventInput, type ServiceContext, eventRow } from "../context";
import { enqueueWebhookDeliveries } from "../webhooks/enqueue";

const EVENT_KEYS = [
  "at",
  "type",
  "sessionId",
  "entity",
  "entityId",
  "actor",
  "principalId",
  "role",
  "via",
  "data",
] as const satisfies readonly (keyof typeof events.$inferInsert)[];

/**
 * The `events` row a mutation owes, as `appendEvent` writes it, through a statement prepared once
 * per connection (db/prepared.ts): for the hot write paths (task moves, log batches). It runs on
 * `ctx.db`, so it must be called inside that connection's write transaction (which also holds the webhook
 * deliveries the event owes).
 */
export function appendEventPrepared(ctx: ServiceContext, event: EventInput): void {
  const db = ctx.db;
  const query = prepared(db, "events.append", () => db.insert(events).values(boundAll(EVENT_KEYS)).prepare());
  const { lastInsertRowid } = query.run(driverValues(events, eventRow(ctx, event), EVENT_KEYS));
  enqueueWebhookDeliveries(db, lastInsertRowid, event.type, event.sessionId, event.data);
}
