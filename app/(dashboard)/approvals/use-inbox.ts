"use client";

import { useQueries, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useTRPC } from "@/app/trpc/client";
import type { AppRouter } from "@/server/api/root";
import type { Proofpack } from "@/server/domain/task-machine";
import { BLOCKED_SESSIONS_INPUT } from "./inbox-input";

type Outputs = inferRouterOutputs<AppRouter>;
type SessionRow = Outputs["session"]["list"]["items"][number];
type TaskRow = Outputs["task"]["list"][number];

/** One blocked task waiting for a decision, with what the decision needs. */
export interface ApprovalItem {
  taskId: number;
  key: string;
  title: string;
  version: number;
  resetCount: number;
  evidence: string[] | null;
  failures: string[];
  proofpack: Proofpack | null;
  claimant: { label: string; principal: string | null; at: Date | null } | null;
  blocker: { label: string; principal: string | null; role: string | null };
  resetRequest: { by: string; reason: string | null; at: Date | null } | null;
  blockedSince: Date;
  session: { id: string; requirements: string | null; status: string; source: string; enforcement: string; mode: string | null };
}

/**
 * Every blocked task across sessions, reset requests first, then the longest-waiting first.
 * Read from the sessions that have one and their blocked tasks.
 */
export function useInbox(): { items: ApprovalItem[]; blocked: number; resetRequested: number } {
  const trpc = useTRPC();
  const { data: sessions } = useSuspenseQuery(trpc.session.list.queryOptions(BLOCKED_SESSIONS_INPUT));
  // Not suspending: a session that just got its first blocked task joins the list when its tasks
  // arrive, while the count (from the session rollups) is already current.
  const lists = useQueries({ queries: sessions.items.map((s) => trpc.task.list.queryOptions({ sessionId: s.id, status: "blocked" })) });
  const failed = lists.find((list) => list.isError && list.data === undefined);
  if (failed) throw failed.error;
  const items = sessions.items.flatMap((session, i) => (lists[i]?.data ?? []).map((task) => toItem(session, task)));
  items.sort((a, b) => Number(b.resetRequest !== null) - Number(a.resetRequest !== null) || a.blockedSince.getTime() - b.blockedSince.getTime() || a.taskId - b.taskId);
  return {
    items,
    blocked: sessions.items.reduce((n, s) => n + s.tasksBlocked, 0),
    resetRequested: sessions.items.reduce((n, s) => n + s.resetRequests, 0),
  };
}

function toItem(session: SessionRow, task: TaskRow): ApprovalItem {
  return {
    taskId: task.id,
    key: task.key,
    title: task.title,
    version: task.version,
    resetCount: task.resetCount,
    evidence: task.evidence,
    failures: task.failures ?? [],
    proofpack: task.proofpack,
    claimant: task.claimedBy ? { label: task.claimedBy, principal: task.claimedByPrincipal, at: task.claimedAt } : null,
    blocker: { label: task.blockedBy ?? "unknown", principal: task.blockedByPrincipal, role: null },
    resetRequest: task.resetRequested ? { by: task.resetRequestedBy ?? "unknown", reason: task.resetReason, at: task.resetRequestedAt } : null,
    blockedSince: task.blockedAt ?? task.updatedAt,
    session: { id: session.id, requirements: session.requirements, status: session.status, source: session.source, enforcement: session.enforcement, mode: session.mode },
  };
}
