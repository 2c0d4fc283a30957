import { count, desc } from "drizzle-orm";
import type { DbOrTx } from "@/db/client";
import { sessions } from "@/db/schema";

export interface SessionOverviewRow {
  id: string;
  requirements: string | null;
  status: "active" | "completed" | "failed";
  source: string;
  enforcement: "enforce" | "observe";
  startedAt: Date;
  tasksTotal: number;
  tasksCompleted: number;
  tasksBlocked: number;
  tasksUnverified: number;
  criteriaRequired: number;
  criteriaRequiredMet: number;
}

export interface SessionsOverview {
  totals: { sessions: number; active: number; completed: number; failed: number };
  recent: SessionOverviewRow[];
}

/**
 * The newest sessions with their progress, and session counts by status. Reads the rollup
 * columns the triggers keep, so it never counts task or criteria rows.
 */
export function listRecentSessions(db: DbOrTx, input: { limit: number }): SessionsOverview {
  const byStatus = db.select({ status: sessions.status, n: count() }).from(sessions).groupBy(sessions.status).all();
  const n = (status: string) => byStatus.find((row) => row.status === status)?.n ?? 0;
  const recent = db
    .select({
      id: sessions.id,
      requirements: sessions.requirements,
      status: sessions.status,
      source: sessions.source,
      enforcement: sessions.enforcement,
      startedAt: sessions.startedAt,
      tasksTotal: sessions.tasksTotal,
      tasksCompleted: sessions.tasksCompleted,
      tasksBlocked: sessions.tasksBlocked,
      tasksUnverified: sessions.tasksUnverified,
      criteriaRequired: sessions.criteriaRequired,
      criteriaRequiredMet: sessions.criteriaRequiredMet,
    })
    .from(sessions)
    .orderBy(desc(sessions.startedAt), desc(sessions.id))
    .limit(input.limit)
    .all();
  return {
    totals: { sessions: byStatus.reduce((sum, row) => sum + row.n, 0), active: n("active"), completed: n("completed"), failed: n("failed") },
    recent,
  };
}

