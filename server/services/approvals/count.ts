import { queryGet, rawGet } from "@/db/query";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { tasks } from "@/db/schema";
import { parseInput } from "../parse-input";
import { loadSession } from "../session/load";
import { IS_BLOCKED, inboxFilterSql, inboxFrom } from "./inbox";
import { InboxCountInput } from "./schemas";

/** The tasks with a reset request: the flag is 0/1 on SQLite and a boolean on PostgreSQL, which does not sum booleans. */
const COUNT_RESET_REQUESTED = sql`count(CASE WHEN ${tasks.resetRequested} THEN 1 END)`;

export interface InboxCount {
  /** Blocked tasks awaiting a decision. */
  blocked: number;
  /** Of those, the ones with a reset request. */
  resetRequested: number;
}

/**
 * How many tasks wait in the approvals inbox. One session's figures are its rollups (a primary-key
 * read). Across sessions the count comes from the partial index `tasks_inbox_idx`, which holds one
 * small entry per blocked task with its reset flag: at 10,000 demo sessions (11,855 blocked tasks)
 * that measured about ten times faster than summing the rollups of the sessions with a blocked
 * task, whose rows are wide. No task row is read either way. With any other filter, the blocked
 * tasks that match are counted with the list's own terms, still from that index: it holds each
 * task's session and `blocked_by` too, so a source or "blocked by" filter reads no task row (a
 * task reported blocked without `blocked_by` looks up the move that blocked it).
 */
export async function inboxCount(db: DbOrTx, raw: InboxCountInput = {}): Promise<InboxCount> {
  const input = parseInput(InboxCountInput, raw, "inbox.invalid_input");
  const { sessionId, ...rest } = input;
  const filtered = Object.values(rest).some((value) => value !== undefined);
  if (sessionId !== undefined && !filtered) {
    const session = await loadSession(db, sessionId);
    return { blocked: session.tasksBlocked, resetRequested: session.resetRequests };
  }
  if (filtered) {
    if (sessionId !== undefined) await loadSession(db, sessionId);
    // The same terms as the list reads, so "N match" counts exactly what paging through would show.
    const flag = input.resetRequested === undefined ? sql`` : sql`AND reset_requested = ${input.resetRequested ? 1 : 0}`;
    const row = await rawGet<{ blocked: number; resetRequested: number }>(
      db,
      sql`
      SELECT count(*) AS blocked, ${COUNT_RESET_REQUESTED} AS "resetRequested" FROM ${inboxFrom(db, input)}
      WHERE status = 'blocked' ${flag} ${inboxFilterSql(input, Date.now())}`,
    );
    return { blocked: row?.blocked ?? 0, resetRequested: row?.resetRequested ?? 0 };
  }
  const row = await queryGet(
    db
      .select({ blocked: sql<number>`count(*)`, resetRequested: sql<number>`${COUNT_RESET_REQUESTED}` })
      .from(tasks)
      .where(IS_BLOCKED),
  );
  return { blocked: row?.blocked ?? 0, resetRequested: row?.resetRequested ?? 0 };
}
