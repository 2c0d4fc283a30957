"use client";

import { useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/app/trpc/client";
import { Card } from "@/app/ui/card";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { LIVE_INPUT, activityInput } from "./overview-queries";
import { QueryBoundary } from "./sessions/query-boundary";
import { SessionFlags, SessionLink, SessionProgress } from "./sessions/session-parts";


export function OverviewClient() {
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <div className="lg:col-span-2">
        <QueryBoundary errorTitle="Could not load the live sessions" fallback={<Skeleton />}>
          <LiveSessions />
        </QueryBoundary>
      </div>
      <QueryBoundary errorTitle="Could not load the activity" fallback={<Skeleton />}>
        <Activity />
      </QueryBoundary>
    </div>
  );
}

function LiveSessions() {
  const trpc = useTRPC();
  const { data } = useSuspenseQuery(trpc.session.list.queryOptions(LIVE_INPUT));
  return (
    <Card
      id="live"
      title="Live sessions"
      actions={
        <Link href="/sessions?status=active" prefetch={false} className="text-sm text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">
          {data.nextCursor ? "All active sessions" : "On the sessions page"}
        </Link>
      }
    >
      {data.items.length === 0 ? (
        <FirstSteps />
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
              {data.items.map((s) => (
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
                      <SessionFlags session={s} observe={s.enforcement === "observe"} quiet />
                    </div>
                  </td>
                  <td className="px-4 py-2">
                    <SessionProgress session={s} />
                  </td>
                  <td className="hidden px-4 py-2 sm:table-cell">
                    <SessionFlags session={s} observe={s.enforcement === "observe"} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

function FirstSteps() {
  return (
    <EmptyState title="No session is active right now.">
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

function Activity() {
  const trpc = useTRPC();
  const { data: latest } = useSuspenseQuery(trpc.events.latestId.queryOptions());
  const { data: events } = useSuspenseQuery(trpc.events.list.queryOptions(activityInput(latest)));
  const newestFirst = [...events].reverse();
  return (
    <Card id="activity" title="Activity">
      {newestFirst.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing has happened yet.</p>
      ) : (
        <ol className="space-y-2 text-sm">
          {newestFirst.map((event) => (
            <li key={event.id} data-event-id={event.id}>
              <p className="break-words">
                <span className="font-medium">{event.actor}</span> {event.type.replace(/[._]/g, " ")}
                {event.entityId && <span className="text-zinc-500"> · {event.entity} {event.entityId}</span>}
              </p>
              <p className="text-xs text-zinc-500">
                {event.sessionId && (
                  <>
                    <SessionLink id={event.sessionId} /> ·{" "}
                  </>
                )}
                <Time at={event.at} />
              </p>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

function Skeleton() {
  return <div aria-hidden className="h-64 animate-pulse rounded-lg bg-zinc-100 dark:bg-zinc-800" />;
}
