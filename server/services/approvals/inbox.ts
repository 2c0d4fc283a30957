import { rawAll, sqlFor } from "@/db/query";
import { and, asc, eq, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { z } from "zod";
import { type Db, type Tx, readTransaction } from "@/db/client";
import { prepared } from "@/db/prepared";
import { sessions, taskTransitions, tasks } from "@/db/schema";
import { ValidationError } from "@/server/domain/errors";
import type { Proofpack } from "@/server/domain/task-machine";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import { InboxInput } from "./schemas";

export interface InboxItem {
  taskId: number;
  key: string;
  title: string;
  description: string | null;
  assignee: string | null;
  /** For `task.approveReset({ expectedVersion })`: refuse if someone moved the task since. */
  version: number;
  /** Resets already approved on this task: this is attempt `resetCount + 1`. */
  resetCount: number;
  evidence: string[] | null;
  failures: string[];
  proofpack: Proofpack | null;
  /** Who claimed the work that was judged; null when the task was blocked without a claim (observe, imports). */
  claimant: { label: string; principal: string | null; at: Date | null } | null;
  /** Who blocked it (a verifier or lead), or who reported it blocked in an observe session. */
  blocker: { label: string; principal: string | null; role: string | null; move: string };
  resetRequest: { by: string; principal: string | null; reason: string | null; at: Date | null } | null;
  /** When the task last entered `blocked` (from its transition), i.e. how long it has waited. */
  blockedSince: Date;
  session: { id: string; requirements: string | null; status: string; source: string; enforcement: string; mode: string | null };
}

export interface InboxPage {
  items: InboxItem[];
  /** Pass back as `cursor`; null when this page is the last. */
  nextCursor: string | null;
}

/**
 * `status = 'blocked'` as a literal, not a bound parameter: SQLite uses the partial index
 * `tasks_inbox_idx` (which holds only blocked tasks) only when the query repeats its predicate.
 */
export const IS_BLOCKED = sql`${tasks.status} = 'blocked'`;

/**
 * The approvals inbox: every blocked task across sessions (or one session's), tasks with a reset
 * request first, then the longest-waiting first. Keyset-paginated on (reset requested, blocked_at,
 * id): a page is the same however many tasks get blocked or reset meanwhile, never OFFSET.
 * `blocked_at` is when the task last entered `blocked` (its latest transition into blocked from
 * another state; a reset request does not restart the wait): the triggers of migration 0004 keep
 * it so for every writer, so the order is a range scan of the partial index `tasks_inbox_idx`,
 * one per reset flag, never a sort of every blocked task. Three reads for any page size (the
 * ordered ids, their rows with sessions, their transitions), in one read snapshot so a task moved
 * meanwhile cannot show half its old state.
 */
export async function listInbox(db: Db, raw: InboxInput = {}): Promise<InboxPage> {
  const input = parseInput(InboxInput, raw, "inbox.invalid_input");
  return readTransaction(db, async (tx) => readPage(db, tx, input));
}

interface Ordered {
  id: number;
  resetRequested: 0 | 1;
  blockedSince: number;
}

async function readPage(connection: Db, db: Tx, input: z.output<typeof InboxInput>): Promise<InboxPage> {
  if (input.sessionId !== undefined) await loadSession(db, input.sessionId);
  const cursor = input.cursor ? decodeCursor(input.cursor) : null;
  const want = input.limit + 1;
  const order: Ordered[] = [];
  const filters = inboxFilterSql(input, Date.now());
  // Reset requests (flag 1) first, then the rest; within each, the longest-waiting first.
  for (const flag of flagsOf(input)) {
    if (order.length >= want || (cursor && flag > cursor[0])) continue;
    const after = cursor && cursor[0] === flag ? sql`AND (blocked_at > ${cursor[1]} OR (blocked_at = ${cursor[1]} AND id > ${cursor[2]}))` : sql``;
    // The flag is the one asked for, not read back: PostgreSQL's is a boolean (a bound 0/1 compares with it), the cursor's 0 or 1.
    const rows = await rawAll<Omit<Ordered, "resetRequested">>(
      db,
      sql`
        SELECT id, blocked_at AS "blockedSince" FROM ${inboxFrom(db, input)}
        WHERE status = 'blocked' AND reset_requested = ${flag} ${filters} ${after}
        ORDER BY blocked_at, id LIMIT ${want - order.length}`,
    );
    order.push(...rows.map((row) => ({ ...row, resetRequested: flag })));
  }
  const page = order.slice(0, input.limit);
  const last = page.at(-1);
  const nextCursor = order.length > input.limit && last ? encodeCursor(last.resetRequested, last.blockedSince, last.id) : null;
  return { items: await loadItems(connection, page), nextCursor };
}

type InboxFilter = Pick<z.output<typeof InboxInput>, "sessionId" | "source" | "minAgeHours" | "resetRequested" | "blockedBy">;

/** The reset flags a filter admits, in the inbox's order (requests first). */
function flagsOf(filter: InboxFilter): (0 | 1)[] {
  return filter.resetRequested === undefined ? [1, 0] : [filter.resetRequested ? 1 : 0];
}

/**
 * Which index to read blocked tasks through. One session's few blocked tasks come from its
 * (session, status) index (named: left to itself, SQLite walks the inbox index through every
 * blocked task of every session); across sessions, the inbox index, which also holds each task's
 * session and `blocked_by` so the source and "blocked by" filters read no task row (migration 0014).
 * PostgreSQL has no INDEXED BY: its planner chooses.
 */
export function inboxFrom(db: object, filter: InboxFilter) {
  return sqlFor(db, {
    sqlite: filter.sessionId !== undefined ? sql`"tasks" INDEXED BY tasks_session_id_status_idx` : sql`"tasks" INDEXED BY tasks_inbox_idx`,
    postgres: sql`"tasks"`,
  });
}

/**
 * The filters other than the reset flag, as `AND …` terms on a blocked task (shared by the list and
 * the count). Age bounds `blocked_at`, which the inbox index is ordered by, so "waiting at least a
 * day" is a shorter range of it. "Blocked by" is who the card names: the task's `blocked_by`, or for
 * a task reported blocked (observe sessions, imports), the actor of the move that put it there.
 */
export function inboxFilterSql(filter: InboxFilter, now: number) {
  const terms = [];
  if (filter.sessionId !== undefined) terms.push(sql`AND session_id = ${filter.sessionId}`);
  if (filter.source !== undefined) terms.push(sql`AND session_id IN (SELECT id FROM sessions WHERE source = ${filter.source})`);
  if (filter.minAgeHours !== undefined) terms.push(sql`AND blocked_at <= ${now - filter.minAgeHours * 3_600_000}`);
  if (filter.blockedBy !== undefined) {
    terms.push(sql`AND coalesce(blocked_by, (
      SELECT tt.actor FROM task_transitions tt WHERE tt.task_id = "tasks".id AND tt.to_status = 'blocked' AND tt.from_status IS DISTINCT FROM 'blocked'
      ORDER BY tt.id DESC LIMIT 1)) = ${filter.blockedBy}`);
  }
  return sql.join(terms, sql` `);
}

/** `id IN (…)` over a JSON array bound as one parameter: one prepared statement for every page size. */
const inIds = (db: object, column: AnySQLiteColumn) =>
  sqlFor(db, {
    sqlite: sql`${column} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`,
    postgres: sql`${column} IN (SELECT value::bigint FROM jsonb_array_elements_text(${sql.placeholder("ids")}::jsonb) AS ids(value))`,
  });

/** The page's tasks with their sessions, and the transitions that put each in `blocked`: prepared once per connection (db/prepared.ts). */
function itemQueries(db: Db) {
  const t = taskTransitions;
  return prepared(db, "approvals.inbox.items", () => ({
    rows: db
      .select({
        task: {
          id: tasks.id,
          key: tasks.key,
          title: tasks.title,
          description: tasks.description,
          assignee: tasks.assignee,
          version: tasks.version,
          resetCount: tasks.resetCount,
          evidence: tasks.evidence,
          failures: tasks.failures,
          proofpack: tasks.proofpack,
          claimedBy: tasks.claimedBy,
          claimedByPrincipal: tasks.claimedByPrincipal,
          claimedAt: tasks.claimedAt,
          blockedBy: tasks.blockedBy,
          blockedByPrincipal: tasks.blockedByPrincipal,
          resetRequested: tasks.resetRequested,
          resetRequestedBy: tasks.resetRequestedBy,
          resetRequestedAt: tasks.resetRequestedAt,
          resetReason: tasks.resetReason,
        },
        session: {
          id: sessions.id,
          requirements: sessions.requirements,
          status: sessions.status,
          source: sessions.source,
          enforcement: sessions.enforcement,
          mode: sessions.mode,
        },
      })
      .from(tasks)
      .innerJoin(sessions, eq(sessions.id, tasks.sessionId))
      .where(inIds(db, tasks.id))
      .prepare(),
    // Only the transitions that end in `blocked`: the block (or report) and any reset request.
    transitions: db
      .select({
        id: t.id,
        taskId: t.taskId,
        move: t.move,
        fromStatus: t.fromStatus,
        actor: t.actor,
        principalId: t.principalId,
        role: t.role,
        reason: t.reason,
        failures: t.failures,
        proofpack: t.proofpack,
        claimant: t.claimant,
        at: t.at,
      })
      .from(t)
      .where(and(inIds(db, t.taskId), sql`${t.toStatus} = 'blocked'`))
      .orderBy(asc(t.id))
      .prepare(),
  }));
}

async function loadItems(db: Db, page: { id: number; blockedSince: number }[]): Promise<InboxItem[]> {
  if (page.length === 0) return [];
  const ids = JSON.stringify(page.map((p) => p.id));
  const queries = itemQueries(db);
  const rows = await queries.rows.all({ ids });
  const transitions = await queries.transitions.all({ ids });
  const byId = new Map(rows.map((r) => [r.task.id, r]));
  return page.map(({ id, blockedSince }) => {
    const { task, session } = byId.get(id)!;
    const mine = transitions.filter((t) => t.taskId === id);
    const entered = mine.filter((t) => t.fromStatus !== "blocked").at(-1);
    const request = mine.filter((t) => t.move === "request_reset" && (!entered || t.id > entered.id)).at(-1);
    const claimantLabel = task.claimedBy ?? entered?.claimant ?? null;
    return {
      taskId: task.id,
      key: task.key,
      title: task.title,
      description: task.description,
      assignee: task.assignee,
      version: task.version,
      resetCount: task.resetCount,
      evidence: task.evidence,
      failures: task.failures ?? entered?.failures ?? [],
      proofpack: task.proofpack ?? entered?.proofpack ?? null,
      claimant:
        claimantLabel === null
          ? null
          : { label: claimantLabel, principal: task.claimedBy !== null ? task.claimedByPrincipal : null, at: task.claimedBy !== null ? task.claimedAt : null },
      blocker: {
        label: task.blockedBy ?? entered?.actor ?? "unknown",
        principal: task.blockedBy !== null ? task.blockedByPrincipal : (entered?.principalId ?? null),
        role: entered?.role ?? null,
        move: entered?.move ?? "block",
      },
      resetRequest: task.resetRequested
        ? {
            by: task.resetRequestedBy ?? request?.actor ?? "unknown",
            principal: request?.principalId ?? null,
            reason: task.resetReason ?? request?.reason ?? null,
            at: task.resetRequestedAt ?? request?.at ?? null,
          }
        : null,
      blockedSince: new Date(blockedSince),
      session,
    };
  });
}

function encodeCursor(reset: number, since: number, id: number): string {
  return Buffer.from(JSON.stringify([reset, since, id])).toString("base64url");
}

function decodeCursor(cursor: string): [number, number, number] {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString()) as unknown;
    if (Array.isArray(value) && value.length === 3 && value.every((n) => Number.isInteger(n))) return value as [number, number, number];
  } catch {
    // fall through
  }
  throw new ValidationError("cursor", "inbox.cursor_invalid", "is not a cursor this list returned");
}
