"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import type { AppRouter } from "@/server/api/root";
import { useTRPC } from "@/app/trpc/client";
import { Badge, StatusBadge } from "@/app/ui/badge";
import { Card } from "@/app/ui/card";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { OVERVIEW_INPUT } from "./overview-queries";
import { QueryFallback } from "@/app/ui/query-fallback";
import { SessionFlags, SessionLink, SessionProgress } from "./sessions/session-parts";

type Overview = inferRouterOutputs<AppRouter>["session"]["overview"];

export function OverviewClient() {
  const trpc = useTRPC();
  const query = useQuery(trpc.session.overview.queryOptions(OVERVIEW_INPUT));
  const { data, isRefetchError, error } = query;
  if (data === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the overview">
        <OverviewSkeleton />
      </QueryFallback>
    );
  }
  return (
    <div className="space-y-6">
      {isRefetchError && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
          Could not refresh the overview ({error.message}); showing what was loaded before.
        </p>
      )}
      {data.sessions.total === 0 && <FirstRun />}
      <SessionTotals totals={data.sessions} />
      {/* One order for every width: what needs a decision first, then what is happening. */}
      <div className="grid gap-6 lg:grid-cols-3">
        <Inbox inbox={data.inbox} />
        <TaskStates tasks={data.tasks} className="lg:col-span-2" />
      </div>
      <div className="grid gap-6 lg:grid-cols-3 lg:items-start">
        <div className="space-y-6 lg:col-span-2">
          <LiveSessions live={data.live} />
          <RecentChecks checks={data.recentChecks} stops={data.runtimeStops} />
        </div>
        <Activity items={data.activity} />
      </div>
    </div>
  );
}

function FirstRun() {
  return (
    <EmptyState title="No sessions yet.">
      <p>Sessions appear here, live, as soon as an orchestrator or agent reports one. Create one by hand:</p>
      <p className="mt-2">
        <Code>proofgate create-session &lt;id&gt; &lt;mode&gt; &quot;&lt;requirements&gt;&quot;</Code>
      </p>
      <p className="mt-2">
        or look around with demo data first: <Code>proofgate demo</Code>
      </p>
    </EmptyState>
  );
}

function SessionTotals({ totals }: { totals: Overview["sessions"] }) {
  const tiles = [
    ["Sessions", totals.total, "/sessions"],
    ["Active", totals.active, "/sessions?status=active"],
    ["Completed", totals.completed, "/sessions?status=completed"],
    ["Failed", totals.failed, "/sessions?status=failed"],
  ] as const;
  return (
    <section aria-label="Session totals" className="grid grid-cols-2 gap-3 sm:grid-cols-4">
      {tiles.map(([label, value, href]) => (
        <Link
          key={label}
          href={href}
          prefetch={false}
          className="rounded-lg border border-zinc-200 bg-white p-4 hover:border-zinc-400 focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-zinc-800 dark:bg-zinc-900 dark:hover:border-zinc-600"
        >
          <div className="text-xs tracking-wide text-zinc-500 uppercase">{label}</div>
          <div className="text-2xl font-semibold tabular-nums" data-testid={`total-${label.toLowerCase()}`}>
            {value}
          </div>
        </Link>
      ))}
    </section>
  );
}

function LiveSessions({ live }: { live: Overview["live"] }) {
  return (
    <Card
      id="live"
      title="Live sessions"
      actions={
        live.total > 0 && (
          <Link href="/sessions?status=active" prefetch={false} className="text-sm text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">
            {live.total > live.items.length ? `All ${live.total} active sessions` : "Active sessions"}
          </Link>
        )
      }
    >
      {live.items.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No session is active right now.</p>
      ) : (
        <div className="-mx-4 overflow-x-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Active sessions, newest first</caption>
            <thead className="border-b border-zinc-200 text-xs text-zinc-500 uppercase dark:border-zinc-800">
              <tr>
                <th scope="col" className="px-4 py-2 font-medium">
                  Session
                </th>
                <th scope="col" className="px-4 py-2 font-medium">
                  Progress
                </th>
                <th scope="col" className="hidden px-4 py-2 font-medium sm:table-cell">
                  Flags
                </th>
              </tr>
            </thead>
            <tbody>
              {live.items.map((s) => {
                const rollups = {
                  id: s.id,
                  tasksTotal: s.tasks.total,
                  tasksCompleted: s.tasks.completed,
                  tasksBlocked: s.tasks.blocked,
                  tasksUnverified: s.tasks.unverified,
                  criteriaRequired: s.criteria.required,
                  criteriaRequiredMet: s.criteria.met,
                };
                return (
                  <tr key={s.id} className="border-b border-zinc-100 align-top last:border-0 dark:border-zinc-800">
                    <td className="max-w-xs px-4 py-2">
                      <SessionLink id={s.id} />
                      {s.requirements && (
                        <p className="mt-0.5 line-clamp-2 text-zinc-600 dark:text-zinc-400" title={s.requirements}>
                          {s.requirements}
                        </p>
                      )}
                      <p className="mt-1 text-xs text-zinc-500">
                        started <Time at={s.startedAt} />
                      </p>
                      <div className="mt-1 sm:hidden">
                        <SessionFlags session={rollups} observe={s.enforcement === "observe"} quiet />
                      </div>
                    </td>
                    <td className="px-4 py-2">
                      <SessionProgress session={rollups} />
                    </td>
                    <td className="hidden px-4 py-2 sm:table-cell">
                      <SessionFlags session={rollups} observe={s.enforcement === "observe"} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

const TASK_STATES = ["pending", "in_progress", "claimed", "verified", "blocked", "completed"] as const;
const STATE_BAR: Record<(typeof TASK_STATES)[number], string> = {
  pending: "bg-zinc-400 dark:bg-zinc-500",
  in_progress: "bg-sky-500",
  claimed: "bg-violet-500",
  verified: "bg-emerald-400",
  blocked: "bg-amber-500",
  completed: "bg-emerald-600",
};

function TaskStates({ tasks, className }: { tasks: Overview["tasks"]; className?: string }) {
  return (
    <Card id="task-states" title="Tasks by state" className={className}>
      {/* The figures below say the same; the bar shows the proportions at a glance. */}
      <div aria-hidden className="flex h-3 overflow-hidden rounded bg-zinc-100 dark:bg-zinc-800">
        {TASK_STATES.map((state) => (
          <div key={state} className={STATE_BAR[state]} style={{ width: `${tasks.total === 0 ? 0 : (tasks[state] / tasks.total) * 100}%` }} />
        ))}
      </div>
      <dl className="mt-3 grid grid-cols-3 gap-3 sm:grid-cols-6">
        {TASK_STATES.map((state) => (
          <div key={state}>
            <dt className="flex items-center gap-1.5">
              <span aria-hidden className={`size-2 rounded-full ${STATE_BAR[state]}`} />
              <StatusBadge status={state} />
            </dt>
            <dd className="mt-1 text-xl font-semibold tabular-nums" data-testid={`tasks-${state}`}>
              {tasks[state]}
            </dd>
          </div>
        ))}
      </dl>
      <p className="mt-3 border-t border-zinc-100 pt-2 text-sm text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
        <span className="font-medium tabular-nums" data-testid="tasks-total">
          {tasks.total}
        </span>{" "}
        tasks in all;{" "}
        <span className={`font-medium tabular-nums ${tasks.unverified > 0 ? "text-rose-700 dark:text-rose-300" : ""}`} data-testid="tasks-unverified">
          {tasks.unverified}
        </span>{" "}
        completed without verification.
      </p>
    </Card>
  );
}

function Inbox({ inbox }: { inbox: Overview["inbox"] }) {
  return (
    <Card id="inbox" title="Approval inbox">
      <p className="text-sm">
        <span className="text-3xl font-semibold tabular-nums" data-testid="inbox-blocked">
          {inbox.blocked}
        </span>{" "}
        blocked {inbox.blocked === 1 ? "task waits" : "tasks wait"} for a decision
        {inbox.resetRequested > 0 && (
          <>
            , <span data-testid="inbox-reset-requested">{inbox.resetRequested}</span> with a reset request
          </>
        )}
        .
      </p>
      <Link
        href="/approvals"
        prefetch={false}
        className="mt-3 inline-block text-sm font-medium text-sky-700 underline-offset-2 hover:underline dark:text-sky-300"
      >
        Open the approval inbox
      </Link>
    </Card>
  );
}

function RecentChecks({ checks, stops }: { checks: Overview["recentChecks"]; stops: Overview["runtimeStops"] }) {
  return (
    <Card id="checks" title="Recent completion checks">
      {stops.held + stops.unverified > 0 && <RuntimeStops stops={stops} />}
      {checks.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          No completion check has run yet. Agents run one with <Code>proofgate check-completion &lt;session&gt;</Code>.
        </p>
      ) : (
        <ol className="divide-y divide-zinc-100 dark:divide-zinc-800">
          {checks.map((check) => (
            <li key={check.id} className="py-2 text-sm" data-check-id={check.id}>
              <div className="flex flex-wrap items-center gap-2">
                <Badge tone={check.accepted ? "good" : "bad"}>{check.accepted ? "Accepted" : "Rejected"}</Badge>
                <SessionLink id={check.sessionId} />
                <span className="text-xs text-zinc-500 tabular-nums">
                  {check.metCount}/{check.totalCount} required criteria met
                </span>
                <span className="ml-auto text-xs text-zinc-500">
                  {check.actor} · <Time at={check.at} />
                </span>
              </div>
              <Reasons reasons={check.reasons} />
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

/** Agent runtimes' stops the gate held, and those that went through with it rejected, across sessions. */
function RuntimeStops({ stops }: { stops: Overview["runtimeStops"] }) {
  return (
    <p className="mb-2 border-b border-zinc-100 pb-2 text-sm text-zinc-600 dark:border-zinc-800 dark:text-zinc-400" data-testid="runtime-stops">
      Agent stops:{" "}
      <span className="font-medium tabular-nums" data-testid="runtime-stops-held">
        {stops.held}
      </span>{" "}
      held by the gate;{" "}
      <span className={`font-medium tabular-nums ${stops.unverified > 0 ? "text-rose-700 dark:text-rose-300" : ""}`} data-testid="runtime-stops-unverified">
        {stops.unverified}
      </span>{" "}
      stopped with the gate rejected
      {stops.unverified > 0 && ` (in ${stops.sessionsUnverified} ${stops.sessionsUnverified === 1 ? "session" : "sessions"})`}.{" "}
      <Link href="/analytics#runtime-stops-heading" prefetch={false} className="text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">
        Over time
      </Link>
    </p>
  );
}

/** The gate's reasons: the first few in view, the rest a click away. */
function Reasons({ reasons }: { reasons: string[] }) {
  const SHOWN = 3;
  if (reasons.length === 0) return null;
  const list = (items: string[], offset: number) => (
    <ul className="mt-1 list-disc pl-5 text-zinc-700 dark:text-zinc-300">
      {items.map((reason, i) => (
        <li key={offset + i}>{reason}</li>
      ))}
    </ul>
  );
  return (
    <>
      {list(reasons.slice(0, SHOWN), 0)}
      {reasons.length > SHOWN && (
        <details className="pl-5">
          <summary className="cursor-pointer text-xs text-zinc-500">{reasons.length - SHOWN} more</summary>
          {list(reasons.slice(SHOWN), SHOWN)}
        </details>
      )}
    </>
  );
}

function Activity({ items }: { items: Overview["activity"] }) {
  return (
    <Card id="activity" title="Activity">
      {items.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing has happened yet.</p>
      ) : (
        <ol className="space-y-2 text-sm">
          {items.map((item) => (
            <li key={item.id} data-event-id={item.id}>
              <p className="break-words">{item.summary}</p>
              <p className="text-xs text-zinc-500">
                {item.sessionId && (
                  <>
                    <SessionLink id={item.sessionId} /> ·{" "}
                  </>
                )}
                <Time at={item.at} />
              </p>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

function OverviewSkeleton() {
  return (
    <div aria-hidden className="space-y-6">
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        {Array.from({ length: 4 }, (_, i) => (
          <div key={i} className="h-20 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800" />
        ))}
      </div>
      <div className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800" />
    </div>
  );
}
