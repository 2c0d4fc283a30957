import { gt, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { sessions } from "@/db/schema";
import { loadSession } from "../session/load";
import { InboxCountInput } from "./schemas";

export interface InboxCount {
  /** Blocked tasks awaiting a decision. */
  blocked: number;
  /** Of those, the ones with a reset request. */
  resetRequested: number;
}

/**
 * How many tasks wait in the approvals inbox, from the per-session rollups the triggers keep
 * (`tasks_blocked`, `reset_requests`): only sessions with a blocked task are read, through the
 * partial index on them, and no task row is counted.
 */
export function inboxCount(db: DbOrTx, raw: InboxCountInput = {}): InboxCount {
  const input = InboxCountInput.parse(raw);
  if (input.sessionId !== undefined) {
    const session = loadSession(db, input.sessionId);
    return { blocked: session.tasksBlocked, resetRequested: session.resetRequests };
  }
  const row = db
    .select({ blocked: sql<number>`coalesce(sum(${sessions.tasksBlocked}), 0)`, resetRequested: sql<number>`coalesce(sum(${sessions.resetRequests}), 0)` })
    .from(sessions)
    .where(gt(sessions.tasksBlocked, 0))
    .get();
  return { blocked: row?.blocked ?? 0, resetRequested: row?.resetRequested ?? 0 };
}
