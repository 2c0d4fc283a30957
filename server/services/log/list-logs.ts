import { type SQL, and, asc, desc, eq, gt, gte, lt, or, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { orchestrationLogs } from "@/db/schema";
import { loadSession } from "../session/load";
import { type LogEntry, toLogEntry } from "./log-row";
import { ListLogsInput } from "./schemas";
import { parseInput } from "./validate";

export interface LogPage {
  items: LogEntry[];
  /** Pass back as `cursor` for the next page; null when this page is the last. */
  nextCursor: number | null;
}

/** `%`, `_` and the escape character itself match literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * One page of a session's orchestration logs, filtered, newest first by default. Keyset
 * pagination on id (never OFFSET): pages stay fast and consistent while agents keep appending, and
 * walking every page returns every matching row exactly once. `since` is inclusive, `until` exclusive.
 */
export function listLogs(db: DbOrTx, raw: ListLogsInput): LogPage {
  const input = parseInput(ListLogsInput, raw);
  loadSession(db, input.sessionId);
  const t = orchestrationLogs;
  const where: (SQL | undefined)[] = [eq(t.sessionId, input.sessionId)];
  if (input.logType) where.push(eq(t.logType, input.logType));
  if (input.agentType) where.push(eq(t.agentType, input.agentType));
  if (input.agentId) where.push(eq(t.agentId, input.agentId));
  if (input.groupId) where.push(eq(t.groupId, input.groupId));
  if (input.reasoningPhase) where.push(eq(t.reasoningPhase, input.reasoningPhase));
  if (input.text) {
    const pattern = `%${escapeLike(input.text)}%`;
    where.push(or(sql`${t.content} like ${pattern} escape '\\'`, sql`${t.eventPayload} like ${pattern} escape '\\'`));
  }
  if (input.since) where.push(gte(t.timestamp, input.since));
  if (input.until) where.push(lt(t.timestamp, input.until));
  const ascending = input.order === "asc";
  if (input.cursor !== undefined) where.push(ascending ? gt(t.id, input.cursor) : lt(t.id, input.cursor));
  const rows = db
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(ascending ? asc(t.id) : desc(t.id))
    .limit(input.limit + 1)
    .all();
  const page = rows.slice(0, input.limit).map(toLogEntry);
  return { items: page, nextCursor: rows.length > input.limit ? page[page.length - 1]!.id : null };
}
