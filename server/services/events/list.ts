import { queryAll, queryGet } from "@/db/query";
import { and, asc, eq, gt, max } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "@/db/client";
import { events } from "@/db/schema";
import { eventDataForReaders } from "@/server/domain/webhooks";
import { parseInput } from "../parse-input";
import { SessionId } from "../schemas-common";

export const ListEventsInput = z
  .object({
    sessionId: SessionId.optional(),
    /** Return events after this id (exclusive): the last id the caller has seen. */
    afterId: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(1000).default(200),
  })
  .strict();
export type ListEventsInput = z.input<typeof ListEventsInput>;
export type EventRow = typeof events.$inferSelect;

/** Events after an id, oldest first: the audit trail, and the live stream's catch-up read. */
export async function listEventsAfter(db: DbOrTx, raw: ListEventsInput): Promise<EventRow[]> {
  const input = parseInput(ListEventsInput, raw, "events.invalid_input");
  const rows = await queryAll(
    db
      .select()
      .from(events)
      .where(and(gt(events.id, input.afterId), input.sessionId ? eq(events.sessionId, input.sessionId) : undefined))
      .orderBy(asc(events.id))
      .limit(input.limit),
  );
  return rows.map(forReaders);
}

/** An event row as it leaves the service: its data through the domain's reader filter (no webhook URLs). */
export function forReaders<T extends Pick<EventRow, "type" | "data">>(row: T): T {
  const data = eventDataForReaders(row.type, row.data);
  return data === row.data ? row : { ...row, data };
}

/** The newest event id (0 when there is none): a rowid lookup, not a scan. */
export async function latestEventId(db: DbOrTx): Promise<number> {
  return (await queryGet(db.select({ id: max(events.id) }).from(events)))?.id ?? 0;
}
