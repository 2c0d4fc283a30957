import { queryAll, sqlFor } from "@/db/query";
import { type SQL, and, asc, desc, eq, gt, gte, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import type { DbOrTx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { loadSession } from "../session/load";
import { type LogEntry, toLogEntry } from "./log-row";
import { ListLogsInput } from "./schemas";
import { parseInput } from "../parse-input";

/**
 * `log.list`'s input: the filters of `ListLogsInput`, and a cursor that may be null and a direction,
 * as tRPC's infinite queries send them (`fetchNextPage` → forward, `fetchPreviousPage` → backward).
 */
export const ListLogsPageInput = ListLogsInput.extend({
  /** An id from a previous page's `nextCursor` (forward) or `prevCursor` (backward). */
  cursor: z.number().int().min(0).nullish(),
  /** forward: rows after the cursor in the list's order (older, newest first); backward: rows before it (newer). */
  direction: z.enum(["forward", "backward"]).default("forward"),
});
export type ListLogsPageInput = z.input<typeof ListLogsPageInput>;

export interface LogPage {
  /** Always in the list's order (`order`), whichever direction the page was fetched in. */
  items: LogEntry[];
  /** Pass back as `cursor` (direction forward) for the rows after this page; null when none are left. */
  nextCursor: number | null;
  /**
   * Pass back as `cursor` with direction backward for the rows before this page. Newest first,
   * that is the rows written since, so it is never null: a live timeline asks it again after each
   * `logs.appended` event (a page of `limit` rows may have more behind it). Oldest first, it is null
   * once the oldest row has been reached.
   */
  prevCursor: number | null;
}

/** `%`, `_` and the escape character itself match literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * One page of a session's orchestration logs, filtered, newest first by default. Keyset
 * pagination on id (never OFFSET) in both directions: pages stay fast and consistent while agents
 * keep appending, and walking every page either way returns every matching row exactly once, with
 * no cap on how far. `since` is inclusive, `until` exclusive.
 */
export async function listLogs(db: DbOrTx, raw: ListLogsPageInput): Promise<LogPage> {
  const input = parseInput(ListLogsPageInput, raw, "log.invalid_input");
  await loadSession(db, input.sessionId);
  const t = orchestrationLogs;
  const where: (SQL | undefined)[] = [eq(t.sessionId, input.sessionId)];
  if (input.logType) where.push(eq(t.logType, input.logType));
  if (input.agentType) where.push(eq(t.agentType, input.agentType));
  if (input.agentId) where.push(eq(t.agentId, input.agentId));
  if (input.groupId) where.push(eq(t.groupId, input.groupId));
  if (input.reasoningPhase) where.push(eq(t.reasoningPhase, input.reasoningPhase));
  if (input.text) {
    const pattern = `%${escapeLike(input.text)}%`;
    // Any case: SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's does not, ILIKE does.
    const like = sqlFor(db, { sqlite: sql`like`, postgres: sql`ilike` });
    where.push(or(sql`${t.content} ${like} ${pattern} escape '\\'`, sql`${t.eventPayload} ${like} ${pattern} escape '\\'`));
  }
  if (input.since) where.push(gte(t.timestamp, input.since));
  if (input.until) where.push(lt(t.timestamp, input.until));

  const descending = input.order === "desc";
  const backward = input.direction === "backward";
  // Read away from the cursor: a backward page starts right next to it, so nothing is skipped.
  const scanDescending = descending !== backward;
  const cursor = input.cursor ?? undefined;
  if (cursor !== undefined) where.push(scanDescending ? lt(t.id, cursor) : gt(t.id, cursor));
  const rows = await queryAll(
    db
      .select()
      .from(t)
      .where(and(...where))
      .orderBy(scanDescending ? desc(t.id) : asc(t.id))
      .limit(input.limit + 1),
  );
  const more = rows.length > input.limit;
  const page = rows.slice(0, input.limit).map(toLogEntry);
  if (backward) page.reverse();
  const first = page[0]?.id;
  const last = page.at(-1)?.id ?? null;

  if (!backward) {
    const prevCursor = descending ? (first ?? cursor ?? 0) : cursor === undefined ? null : (first ?? null);
    return { items: page, nextCursor: more ? last : null, prevCursor };
  }
  const prevCursor = descending ? (first ?? cursor ?? 0) : more ? (first ?? null) : null;
  return { items: page, nextCursor: last, prevCursor };
}
