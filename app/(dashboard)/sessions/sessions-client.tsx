"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTransition } from "react";
import { useTRPC } from "@/app/trpc/client";
import { StatusBadge } from "@/app/ui/badge";
import { AddressProblems } from "@/app/ui/filter-bar";
import { Code, EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { QueryFallback } from "@/app/ui/query-fallback";
import { SessionFilters } from "./session-filters";
import { SessionFlags, SessionLink, SessionProgress } from "./session-parts";
import { type SessionsView, clearFilters, hasFilters, sessionsHref, toListInput } from "./sessions-view";

export function SessionsClient({ view, problems }: { view: SessionsView; problems: string[] }) {
  const router = useRouter();
  const [navigating, startNavigation] = useTransition();
  const go = (next: SessionsView) => startNavigation(() => router.push(sessionsHref(next), { scroll: false }));

  return (
    <>
      <SessionFilters view={view} go={go} />
      <AddressProblems problems={problems} />
      <div aria-busy={navigating} className={navigating ? "opacity-60 transition-opacity" : undefined}>
        <SessionsResults view={view} />
      </div>
    </>
  );
}

function SessionsResults({ view }: { view: SessionsView }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.session.list.queryOptions(toListInput(view)));
  const { data, isRefetchError, error } = query;
  if (data === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load sessions">
        <TableSkeleton />
      </QueryFallback>
    );
  }

  if (data.items.length === 0) return <NoSessions view={view} />;
  const first = view.after === null;

  return (
    <>
      {isRefetchError && (
        <p role="alert" className="mb-2 text-sm text-rose-700 dark:text-rose-300">
          Could not refresh this list ({error.message}); showing what was loaded before.
        </p>
      )}
      <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">
            Sessions, {view.order === "newest" ? "newest" : "oldest"} first, page {view.page}
          </caption>
          <thead className="border-b border-zinc-200 text-xs text-zinc-500 uppercase dark:border-zinc-800">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                Session
              </th>
              <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell">
                Status
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                Progress
              </th>
              <th scope="col" className="hidden px-3 py-2 font-medium md:table-cell">
                Flags
              </th>
              <th scope="col" className="hidden px-3 py-2 font-medium md:table-cell">
                Started
              </th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((s) => (
              <tr key={s.id} data-session-id={s.id} className="border-b border-zinc-100 align-top last:border-0 dark:border-zinc-800">
                <td className="max-w-md px-3 py-2">
                  <SessionLink id={s.id} />
                  {s.requirements && (
                    <p className="mt-0.5 line-clamp-2 text-zinc-600 dark:text-zinc-400" title={s.requirements}>
                      {s.requirements}
                    </p>
                  )}
                  {/* Narrow screens: the columns hidden there, folded into this cell. */}
                  <div className="mt-1.5 flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 sm:hidden">
                    <StatusBadge status={s.status} />
                    <span>{meta(s)}</span>
                  </div>
                  <div className="mt-1.5 flex flex-wrap items-center gap-1.5 text-xs text-zinc-500 md:hidden">
                    <SessionFlags session={s} unverifiedStops={data.unverifiedStops[s.id]} quiet />
                    <Time at={s.startedAt} />
                  </div>
                </td>
                <td className="hidden px-3 py-2 sm:table-cell">
                  <StatusBadge status={s.status} />
                  <p className="mt-1 text-xs whitespace-nowrap text-zinc-500">{meta(s)}</p>
                </td>
                <td className="px-3 py-2">
                  <SessionProgress session={s} />
                </td>
                <td className="hidden px-3 py-2 md:table-cell">
                  <SessionFlags session={s} unverifiedStops={data.unverifiedStops[s.id]} />
                </td>
                <td className="hidden px-3 py-2 text-xs md:table-cell">
                  <Time at={s.startedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav aria-label="Pages" className="mt-3 flex flex-wrap items-center gap-3 text-sm">
        <span className="text-zinc-600 dark:text-zinc-400">Page {view.page}</span>
        {!first && <PageLink href={sessionsHref({ ...view, after: null, page: 1 })}>First page</PageLink>}
        {data.nextCursor ? (
          <PageLink href={sessionsHref({ ...view, after: data.nextCursor, page: view.page + 1 })}>Next page</PageLink>
        ) : (
          <span className="text-zinc-500">{first ? "All sessions shown" : "Last page"}</span>
        )}
      </nav>
    </>
  );
}

const meta = (s: { mode: string | null; source: string; enforcement: string }) => [s.mode, s.source, s.enforcement].filter(Boolean).join(" · ");

function PageLink({ href, children }: { href: string; children: string }) {
  return (
    <Link
      href={href}
      prefetch={false}
      className="rounded-md border border-zinc-300 px-3 py-1.5 font-medium hover:bg-zinc-100 dark:border-zinc-700 dark:hover:bg-zinc-800"
    >
      {children}
    </Link>
  );
}

/** Three different "nothing here"s: none at all (say how to make one), none matching, none after this cursor. */
function NoSessions({ view }: { view: SessionsView }) {
  if (view.after !== null) {
    return (
      <EmptyState title="No more sessions.">
        <Link href={sessionsHref({ ...view, after: null, page: 1 })} prefetch={false} className="underline">
          Back to the first page
        </Link>
      </EmptyState>
    );
  }
  if (hasFilters(view)) {
    return (
      <EmptyState title="No sessions match these filters.">
        <Link href={sessionsHref(clearFilters(view))} prefetch={false} className="underline">
          Clear filters
        </Link>{" "}
        to see every session.
      </EmptyState>
    );
  }
  return (
    <EmptyState title="No sessions yet.">
      <p>An orchestrator creates one when it starts work. To create one by hand:</p>
      <p className="mt-2">
        <Code>proofgate create-session &lt;id&gt; &lt;mode&gt; &quot;&lt;requirements&gt;&quot;</Code>
      </p>
      <p className="mt-2">
        or fill the ledger with demo sessions: <Code>proofgate demo</Code>
      </p>
    </EmptyState>
  );
}

function TableSkeleton() {
  return (
    <div aria-hidden className="space-y-2 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} className="h-10 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
      ))}
    </div>
  );
}
