import { queryGet } from "@/db/query";
import { and, eq } from "drizzle-orm";
import type { Tx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { type ServiceContext, nowOf, write } from "../context";
import { loadSession } from "../session/load";
import { appendLogRow } from "./append-log";
import { requireLogWriter } from "./common";
import { type LogRow, eventValues } from "./log-row";
import { SaveEventInput } from "./schemas";
import { parseInput } from "../parse-input";

export interface SavedEvent {
  row: LogRow;
  /** False when the idempotency key was already used: the existing row is returned, nothing is stored. */
  created: boolean;
}

/**
 * Save an orchestration event (BAZINGA's `save-event`: `pm_bazinga`, `validator_verdict`, …) with
 * its JSON payload, redacted. With an idempotency key, a repeat for the same session, subtype and
 * group stores nothing new and returns the row the first call stored.
 */
export async function saveEvent(ctx: ServiceContext, raw: SaveEventInput): Promise<SavedEvent> {
  requireLogWriter(ctx, "save events");
  const input = parseInput(SaveEventInput, raw, "log.invalid_input");
  const values = eventValues(input.sessionId, nowOf(ctx), input);
  return write(ctx, async (tx) => {
    await loadSession(tx, input.sessionId);
    const existing = await findByIdempotencyKey(tx, values);
    if (existing) return { row: existing, created: false };
    return { row: await appendLogRow(tx, ctx, values), created: true };
  });
}

/** The event a key already stored (the lookup BAZINGA's unique idempotency index answers). */
export async function findByIdempotencyKey(
  tx: Tx,
  key: { sessionId: string; eventSubtype: string | null; groupId: string | null; idempotencyKey: string | null },
): Promise<LogRow | undefined> {
  if (key.idempotencyKey === null || key.eventSubtype === null || key.groupId === null) return undefined;
  return await queryGet(
    tx
      .select()
      .from(orchestrationLogs)
      .where(
        and(
          eq(orchestrationLogs.sessionId, key.sessionId),
          eq(orchestrationLogs.logType, "event"),
          eq(orchestrationLogs.eventSubtype, key.eventSubtype),
          eq(orchestrationLogs.groupId, key.groupId),
          eq(orchestrationLogs.idempotencyKey, key.idempotencyKey),
        ),
      ),
  );
}
