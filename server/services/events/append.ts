import { type EventInput, type ServiceContext, appendEventRow } from "../context";

/**
 * The `events` row a mutation owes, for the hot write paths (task moves, log batches) that hold no
 * Drizzle transaction object: the same prepared statement as `appendEvent`, on `ctx.db`, so it must
 * be called inside that connection's write transaction (which also holds the webhook deliveries
 * the event owes).
 */
export async function appendEventPrepared(ctx: ServiceContext, event: EventInput): Promise<void> {
  await appendEventRow(ctx, event);
}
