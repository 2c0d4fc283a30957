import { queryAll, rawGet, sqlFor } from "@/db/query";
import { type SQL, and, desc, eq, getTableColumns, gte, inArray, lt, lte, sql } from "drizzle-orm";
import type { z } from "zod";
import type { DbOrTx } from "@/db/client";
import { events, sessions } from "@/db/schema";
import { describeEvent } from "../overview/describe-event";
import { parseInput } from "../parse-input";
import { type EventFilter, SearchEventsInput } from "./schemas";
import { type EventRow, forReaders } from "./list";

export interface AuditEvent extends EventRow {
  /** The source of the event's session (null: no session, or one since purged). */
  source: string | null;
  /** One line, in the activity feed's words. */
  summary: string;
}

export interface AuditEventPage {
  items: AuditEvent[];
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: number | null;
}

/**
 * Up to this many matches, a time range or a source is read from its index and its events sorted
 * by id; beyond it, the log is walked newest first and each event checked, which fills a page
 * quickly when matches are dense (sorting every event of a busy source for each page would not).
 */
const SELECTIVE = 500;

/**
 * The audit log: events newest first, filtered, keyset-paginated by id. A page holds the events
 * before the cursor, so events written while someone pages (always newer, with larger ids) never
 * shift a later page: nothing is skipped or shown twice. Each filter is answered from an index
 * (see `filterWhere`).
 */
export async function searchEvents(db: DbOrTx, raw: SearchEventsInput): Promise<AuditEventPage> {
  const input = parseInput(SearchEventsInput, raw, "events.invalid_input");
  const where = [...(await filterWhere(db, input.filter)), input.cursor ? lt(events.id, input.cursor) : undefined];
  const rows = await queryAll(
    db
      .select({ ...getTableColumns(events), source: sessions.source })
      .from(events)
      .leftJoin(sessions, eq(sessions.id, events.sessionId))
      .where(and(...where))
      .orderBy(desc(events.id))
      .limit(input.limit + 1),
  );
  const items = rows.slice(0, input.limit).map((row) => ({ ...forReaders(row), summary: describeEvent(row) }));
  const last = items.at(-1);
  return { items, nextCursor: rows.length > input.limit && last ? last.id : null };
}

/**
 * The WHERE of a filter. Type, actor and session each have an index on (column, id), read in id
 * order. A time range (`events_at_idx`) or a source (its sessions, then `events_session_id_id_idx`)
 * is read from its index when few events match, or checked while walking the log when many do.
 */
async function filterWhere(db: DbOrTx, filter: z.output<typeof EventFilter>): Promise<(SQL | undefined)[]> {
  let time: SQL | undefined;
  if (filter.from || filter.to) {
    const range = and(filter.from ? gte(events.at, filter.from) : undefined, filter.to ? lte(events.at, filter.to) : undefined);
    // Unary + keeps SQLite from the `at` index, and from sorting every event in a dense range
    // (PostgreSQL's planner weighs the index itself).
    const walked = sqlFor(db, {
      sqlite: and(
        filter.from ? sql`+${events.at} >= ${filter.from.getTime()}` : undefined,
        filter.to ? sql`+${events.at} <= ${filter.to.getTime()}` : undefined,
      )!,
      postgres: range!,
    });
    time = (await selective(db, range)) ? inArray(events.id, db.select({ id: events.id }).from(events).where(range)) : walked;
  }
  let source: SQL | undefined;
  if (filter.source) {
    const ofSource = db.select({ id: sessions.id }).from(sessions).where(eq(sessions.source, filter.source));
    // PostgreSQL has no unary + on text.
    const walked = sqlFor(db, { sqlite: sql`+${events.sessionId} IN ${ofSource}`, postgres: inArray(events.sessionId, ofSource) });
    source = (await selective(db, inArray(events.sessionId, ofSource))) ? inArray(events.sessionId, ofSource) : walked;
  }
  return [
    filter.type ? eq(events.type, filter.type) : undefined,
    filter.actor ? eq(events.actor, filter.actor) : undefined,
    filter.sessionId ? eq(events.sessionId, filter.sessionId) : undefined,
    source,
    time,
  ];
}

/** Whether fewer than SELECTIVE events match `condition` (counted from its index, stopping at SELECTIVE). */
async function selective(db: DbOrTx, condition: SQL | undefined): Promise<boolean> {
  const { n } = await rawGet<{ n: number }>(
    db,
    sql`SELECT count(*) AS n FROM (${db.select({ id: events.id }).from(events).where(condition).limit(SELECTIVE)}) AS matching`,
  );
  return n < SELECTIVE;
}
