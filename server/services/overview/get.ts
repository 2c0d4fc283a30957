import { queryAll, queryGet, rawGet } from "@/db/query";
import { desc, eq, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import { type Db, type Tx, readTransaction } from "@/db/client";
import { completionChecks, events, sessions } from "@/db/schema";
import type { TaskStatus } from "@/server/domain/task-machine";
import { type InboxCount, inboxCount } from "../approvals/count";
import { parseInput } from "../parse-input";
import { describeEvent } from "./describe-event";
import { EVENT_TYPES } from "@/server/domain/event-types";

export const OverviewInput = z
  .object({
    /** How many live sessions to list (newest first); `live.total` counts them all. */
    liveLimit: z.number().int().min(1).max(100).default(20),
  })
  .strict();
export type OverviewInput = z.input<typeof OverviewInput>;

export interface LiveSession {
  id: string;
  requirements: string | null;
  mode: string | null;
  source: string;
  enforcement: string;
  startedAt: Date;
  tasks: { total: number; completed: number; blocked: number; claimed: number; unverified: number };
  criteria: { required: number; met: number };
}

export interface RecentCheck {
  id: number;
  sessionId: string;
  accepted: boolean;
  reasons: string[];
  metCount: number;
  totalCount: number;
  source: string;
  claimedVerdict: string | null;
  actor: string;
  at: Date;
}

export interface ActivityItem {
  id: number;
  at: Date;
  type: string;
  sessionId: string | null;
  actor: string;
  role: string | null;
  entity: string;
  entityId: string | null;
  summary: string;
}

export interface Overview {
  sessions: { total: number; active: number; completed: number; failed: number };
  live: { total: number; items: LiveSession[] };
  /** Tasks by state across every session, from the sessions' rollups; `unverified` = completed with no verification. */
  tasks: Record<TaskStatus, number> & { total: number; unverified: number };
  inbox: InboxCount;
  /**
   * Agent runtimes' stops across sessions, from the hooks' events (one per ledger session a stop
   * concerned): `held` while a linked session's gate rejected, `unverified` let through with it
   * rejecting (the cap, or another hook's continuation), in `sessionsUnverified` sessions.
   */
  runtimeStops: { held: number; unverified: number; sessionsUnverified: number };
  /** The last 10 completion checks across sessions, newest first. */
  recentChecks: RecentCheck[];
  /** The last 20 events, newest first, each with a one-line summary. */
  activity: ActivityItem[];
}

const RECENT_CHECKS = 10;
const ACTIVITY = 20;

/**
 * Everything the `/` page shows, in a handful of reads that never count task or criteria rows:
 * session and task totals are sums of the rollups the triggers keep on `sessions`; the lists are
 * index range scans of a few rows each. One read snapshot, so the figures agree with each other.
 */
export async function getOverview(db: Db, raw: OverviewInput = {}): Promise<Overview> {
  const input = parseInput(OverviewInput, raw, "overview.invalid_input");
  return readTransaction(db, async (tx) => readOverview(tx, input));
}

async function readOverview(db: Tx, input: z.output<typeof OverviewInput>): Promise<Overview> {
  const s = sessions;
  const sum = (column: AnySQLiteColumn) => sql<number>`coalesce(sum(${column}), 0)`;
  const totals = (await queryGet(
    db
      .select({
        total: sql<number>`count(*)`,
        // count(CASE …), not sum(a = b): PostgreSQL does not sum booleans.
        active: sql<number>`count(CASE WHEN ${s.status} = 'active' THEN 1 END)`,
        completed: sql<number>`count(CASE WHEN ${s.status} = 'completed' THEN 1 END)`,
        failed: sql<number>`count(CASE WHEN ${s.status} = 'failed' THEN 1 END)`,
        tasksTotal: sum(s.tasksTotal),
        pending: sum(s.tasksPending),
        inProgress: sum(s.tasksInProgress),
        claimed: sum(s.tasksClaimed),
        verified: sum(s.tasksVerified),
        blocked: sum(s.tasksBlocked),
        tasksCompleted: sum(s.tasksCompleted),
        unverified: sum(s.tasksUnverified),
      })
      .from(s),
  ))!;

  const live = await queryAll(
    db
      .select({
        id: s.id,
        requirements: s.requirements,
        mode: s.mode,
        source: s.source,
        enforcement: s.enforcement,
        startedAt: s.startedAt,
        tasksTotal: s.tasksTotal,
        tasksCompleted: s.tasksCompleted,
        tasksBlocked: s.tasksBlocked,
        tasksClaimed: s.tasksClaimed,
        tasksUnverified: s.tasksUnverified,
        criteriaRequired: s.criteriaRequired,
        criteriaRequiredMet: s.criteriaRequiredMet,
      })
      .from(s)
      .where(eq(s.status, "active"))
      .orderBy(desc(s.startedAt), desc(s.id))
      .limit(input.liveLimit),
  );

  const c = completionChecks;
  const recentChecks = await queryAll(
    db
      .select({
        id: c.id,
        sessionId: c.sessionId,
        accepted: c.accepted,
        reasons: c.reasons,
        metCount: c.metCount,
        totalCount: c.totalCount,
        source: c.source,
        claimedVerdict: c.claimedVerdict,
        actor: c.actor,
        at: c.at,
      })
      .from(c)
      .orderBy(desc(c.at), desc(c.id))
      .limit(RECENT_CHECKS),
  );

  // The (type, id) index: a range of the stop events only, a few per agent turn.
  const stops = (await rawGet<{ held: number; unverified: number; sessionsUnverified: number }>(
    db,
    sql`
    SELECT count(CASE WHEN type = ${EVENT_TYPES.runtimeStopHeld} THEN 1 END) AS held, count(CASE WHEN type = ${EVENT_TYPES.runtimeStopUnverified} THEN 1 END) AS unverified,
      count(DISTINCT CASE WHEN type = ${EVENT_TYPES.runtimeStopUnverified} THEN session_id END) AS "sessionsUnverified"
    FROM events WHERE type IN (${EVENT_TYPES.runtimeStopHeld}, ${EVENT_TYPES.runtimeStopUnverified})`,
  ))!;

  // Newest written first: the order the live stream continues in.
  const activity = await queryAll(db.select().from(events).orderBy(desc(events.id)).limit(ACTIVITY));

  return {
    sessions: { total: totals.total, active: totals.active, completed: totals.completed, failed: totals.failed },
    live: {
      total: totals.active,
      items: live.map((row) => ({
        id: row.id,
        requirements: row.requirements,
        mode: row.mode,
        source: row.source,
        enforcement: row.enforcement,
        startedAt: row.startedAt,
        tasks: { total: row.tasksTotal, completed: row.tasksCompleted, blocked: row.tasksBlocked, claimed: row.tasksClaimed, unverified: row.tasksUnverified },
        criteria: { required: row.criteriaRequired, met: row.criteriaRequiredMet },
      })),
    },
    tasks: {
      total: totals.tasksTotal,
      pending: totals.pending,
      in_progress: totals.inProgress,
      claimed: totals.claimed,
      verified: totals.verified,
      blocked: totals.blocked,
      completed: totals.tasksCompleted,
      unverified: totals.unverified,
    },
    inbox: await inboxCount(db),
    runtimeStops: stops,
    recentChecks,
    activity: activity.map((e) => ({
      id: e.id,
      at: e.at,
      type: e.type,
      sessionId: e.sessionId,
      actor: e.actor,
      role: e.role,
      entity: e.entity,
      entityId: e.entityId,
      summary: describeEvent(e),
    })),
  };
}
