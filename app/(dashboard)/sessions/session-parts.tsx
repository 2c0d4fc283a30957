"use client";

import Link from "next/link";
import { Badge } from "@/app/ui/badge";
import { ProgressBar } from "@/app/ui/progress-bar";
import { sessionHref } from "./[id]/session-id";

/** The rollup columns every session row carries (kept exact by the database's triggers). */
export interface SessionRollups {
  id: string;
  tasksTotal: number;
  tasksCompleted: number;
  tasksBlocked: number;
  tasksUnverified: number;
  criteriaRequired: number;
  criteriaRequiredMet: number;
}

/** A link to the session's page. */
export function SessionLink({ id }: { id: string }) {
  return (
    // Session pages hold live data: fetched on navigation, not for every row in view (as the main navigation does).
    <Link
      href={sessionHref(id)}
      prefetch={false}
      className="font-mono text-xs font-medium break-all text-sky-700 underline-offset-2 hover:underline dark:text-sky-300"
    >
      {id}
    </Link>
  );
}

/** Tasks completed / total and required criteria met / total, as two labelled bars. */
export function SessionProgress({ session }: { session: SessionRollups }) {
  return (
    <div className="space-y-1">
      <div className="flex items-center gap-2">
        <span className="w-12 text-xs text-zinc-500">Tasks</span>
        <ProgressBar label={`Tasks completed in ${session.id}`} value={session.tasksCompleted} max={session.tasksTotal} />
      </div>
      <div className="flex items-center gap-2">
        <span className="w-12 text-xs text-zinc-500">Criteria</span>
        <ProgressBar label={`Required criteria met in ${session.id}`} value={session.criteriaRequiredMet} max={session.criteriaRequired} />
      </div>
    </div>
  );
}

/** What needs a human's eye: blocked tasks, and completions no one verified. */
export function SessionFlags({
  session,
  observe,
  quiet,
  unverifiedStops = 0,
}: {
  session: SessionRollups;
  observe?: boolean;
  quiet?: boolean;
  unverifiedStops?: number;
}) {
  const flags = [
    unverifiedStops > 0 && (
      <Badge key="unverified-stops" tone="bad">
        {unverifiedStops === 1 ? "stopped with the gate rejected" : `${unverifiedStops} stops with the gate rejected`}
      </Badge>
    ),
    session.tasksBlocked > 0 && (
      <Badge key="blocked" tone="warn">
        {session.tasksBlocked} blocked
      </Badge>
    ),
    session.tasksUnverified > 0 && (
      <Badge key="unverified" tone="bad">
        {session.tasksUnverified} unverified
      </Badge>
    ),
    observe && <Badge key="observe">observe</Badge>,
  ].filter(Boolean);
  if (flags.length === 0) return quiet ? null : <span className="text-xs text-zinc-400">—</span>;
  return <div className="flex flex-wrap gap-1">{flags}</div>;
}
