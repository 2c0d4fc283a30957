import { queryAll, rawAll, rawGet, sqlFor } from "@/db/query";
import { type SQL, and, asc, desc, eq, gt, gte, ilike, like, lt, lte, or, sql } from "drizzle-orm";
import { z } from "zod";
import { type DbOrTx, engineOf } from "@/db/client";
import { SESSION_SOURCES, SESSION_STATUSES } from "@/server/domain/vocabulary";
import { sessions } from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import { EVENT_TYPES } from "@/server/domain/event-types";
import { parseInput } from "../parse-input";
import type { SessionRow } from "./load";

export const ListSessionsInput = z
  .object({
    status: z.enum(SESSION_STATUSES).optional(),
    source: z.enum(SESSION_SOURCES).optional(),
    search: z.string().trim().max(200).optional(),
    hasBlocked: z.boolean().optional(),
    startedFrom: z.date().optional(),
    startedTo: z.date().optional(),
    order: z.enum(["newest", "oldest"]).default("newest"),
    /** Opaque cursor from the previous page's `nextCursor`. */
    cursor: z.string().max(300).nullish(),
    /** Sent by tRPC's infinite queries; pages only go forward. */
    direction: z.literal("forward").optional(),
    limit: z.number().int().min(1).max(200).default(50),
  })
  .strict();
export type ListSessionsInput = z.input<typeof ListSessionsInput>;

export interface SessionPage {
  items: SessionRow[];
  nextCursor: string | null;
  /** Stops an agent runtime let through while the gate rejected (runtime.stop_unverified), by session of this page; absent: none. */
  unverifiedStops: Record<string, number>;
}

/**
 * Sessions, filtered and keyset-paginated on (started_at, id): each page is an index range scan,
 * as fast on page 200 as on page 1 — never OFFSET.
 */
export async function listSessions(db: DbOrTx, raw: ListSessionsInput = {}): Promise<SessionPage> {
  const input = parseInput(ListSessionsInput, raw, "session.invalid_input");
  const newest = input.order === "newest";
  const where: (SQL | undefined)[] = [
    input.status ? eq(sessions.status, input.status) : undefined,
    input.source ? eq(sessions.source, input.source) : undefined,
    // A literal, not a bound parameter: SQLite uses the partial index on blocked sessions only then.
    input.hasBlocked ? sql`${sessions.tasksBlocked} > 0` : undefined,
    input.startedFrom ? gte(sessions.startedAt, input.startedFrom) : undefined,
    input.startedTo ? lte(sessions.startedAt, input.startedTo) : undefined,
    input.search ? await searchFilter(db, input.search) : undefined,
  ];
  if (input.cursor) {
    const [at, id] = decodeCursor(input.cursor);
    const before = newest ? lt : gt;
    where.push(or(before(sessions.startedAt, at), and(eq(sessions.startedAt, at), before(sessions.id, id))));
  }
  const order = newest ? [desc(sessions.startedAt), desc(sessions.id)] : [asc(sessions.startedAt), asc(sessions.id)];
  const rows = await queryAll(
    db
      .select()
      .from(sessions)
      .where(and(...where))
      .orderBy(...order)
      .limit(input.limit + 1),
  );
  const items = rows.slice(0, input.limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rows.length > input.limit && last ? encodeCursor(last.startedAt, last.id) : null,
    unverifiedStops: await unverifiedStopsOf(db, items),
  };
}

/**
 * The page's sessions with a stop let through unverified. `+session_id` keeps SQLite on the
 * (type, id) index: a range of these rare events, not every event of the page's sessions
 * (PostgreSQL has no unary + on text, and its planner weighs the two indexes itself).
 */
async function unverifiedStopsOf(db: DbOrTx, items: readonly SessionRow[]): Promise<Record<string, number>> {
  if (items.length === 0) return {};
  const ids = sql.join(
    items.map((s) => sql`${s.id}`),
    sql`, `,
  );
  const rows = await rawAll<{ sessionId: string; n: number }>(
    db,
    sql`
    SELECT session_id AS "sessionId", count(*) AS n FROM events
    WHERE type = ${EVENT_TYPES.runtimeStopUnverified} AND ${sqlFor(db, { sqlite: sql`+session_id`, postgres: sql`session_id` })} IN (${ids}) GROUP BY 1`,
  );
  return Object.fromEntries(rows.map((r) => [r.sessionId, r.n]));
}

/** Up to this many matches, a search is answered from the trigram index; beyond it, by walking the list's order. */
const SELECTIVE_MATCHES = 200;

/**
 * Sessions whose id or requirements hold `search` (case-insensitive). A search of three characters
 * or more that few sessions match (a typo, an id) is answered from the trigram index
 * `sessions_search` (migration 0006): reading every session to find none took ~10 ms on 10,000
 * sessions, the index 0.01 ms, and sorting at most SELECTIVE_MATCHES rows is cheap. A search many
 * sessions match, or one shorter than trigram matching can answer, walks the list's own order
 * index with LIKE and stops at the page's end, which dense matches reach quickly (collecting 7,500
 * matches from the index first took 10 ms, the walk 1 ms).
 *
 * PostgreSQL has no FTS table: a pg_trgm GIN index on `id || ' ' || coalesce(requirements, '')`
 * (migrations-pg 0002) answers ILIKE on that exact expression, and its planner chooses between the
 * index and the walk. The terms on each column keep the answer SQLite's: a match must lie within
 * the id or the requirements, not across the space that joins them.
 */
async function searchFilter(db: DbOrTx, search: string): Promise<SQL> {
  if (engineOf(db) === "postgres") {
    const eachColumn = or(ilike(sessions.id, pattern(search)), ilike(sessions.requirements, pattern(search)))!;
    if ([...search].length < 3) return eachColumn;
    return and(sql`(${sessions.id} || ' ' || coalesce(${sessions.requirements}, '')) ILIKE ${pattern(search)}`, eachColumn)!;
  }
  if ([...search].length >= 3) {
    const phrase = `"${search.replaceAll('"', '""')}"`;
    const { matches } = await rawGet<{ matches: number }>(
      db,
      sql`SELECT count(*) AS matches FROM (SELECT 1 FROM sessions_search WHERE sessions_search MATCH ${phrase} LIMIT ${SELECTIVE_MATCHES})`,
    );
    if (matches < SELECTIVE_MATCHES) return sql`${sessions.id} IN (SELECT id FROM sessions_search WHERE sessions_search MATCH ${phrase})`;
  }
  return or(like(sessions.id, pattern(search)), like(sessions.requirements, pattern(search)))!;
}

function pattern(search: string) {
  return sql`${`%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`;
}

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(JSON.stringify([at.getTime(), id])).toString("base64url");
}

function decodeCursor(cursor: string): [Date, string] {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as [unknown, unknown];
    if (typeof at === "number" && typeof id === "string") return [new Date(at), id];
  } catch {
    // fall through
  }
  throw new ValidationError("cursor", "list.cursor_invalid", "is not a cursor this list returned");
}
