"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { useTRPC } from "@/app/trpc/client";
import { Badge } from "@/app/ui/badge";
import { AddressProblems } from "@/app/ui/filter-bar";
import { EmptyState } from "@/app/ui/states";
import { Time } from "@/app/ui/time";
import { QueryFallback } from "@/app/ui/query-fallback";
import { useViewer } from "../viewer";
import { ActivityFilters } from "./activity-filters";
import { type ActivityView, activityHref, clearFilters, hasFilters, toSearchInput } from "./activity-view";
import { eventLink } from "./event-link";

export function ActivityClient({ view, problems }: { view: ActivityView; problems: string[] }) {
  const router = useRouter();
  const [navigating, startNavigation] = useTransition();
  const go = (next: ActivityView) => startNavigation(() => router.push(activityHref(next), { scroll: false }));

  return (
    <>
      <ActivityFilters view={view} go={go} />
      <AddressProblems problems={problems} />
      <div aria-busy={navigating} className={navigating ? "opacity-60 transition-opacity" : undefined}>
        <ActivityResults view={view} />
      </div>
    </>
  );
}

function ActivityResults({ view }: { view: ActivityView }) {
  const trpc = useTRPC();
  const viewer = useViewer();
  // The live provider marks this stale on every event: on the first page, new events arrive at the top.
  const query = useQuery({ ...trpc.events.search.queryOptions(toSearchInput(view)), placeholderData: keepPreviousData });
  const { data, isRefetchError, error } = query;
  // Events newer than the first page first shown are marked as new while the page stays open.
  const [seenUpTo, setSeenUpTo] = useState<number | null>(data ? (data.items[0]?.id ?? 0) : null);
  if (seenUpTo === null && data) setSeenUpTo(data.items[0]?.id ?? 0);
  if (data === undefined) {
    return (
      <QueryFallback query={query} errorTitle="Could not load the activity">
        <ActivitySkeleton />
      </QueryFallback>
    );
  }
  if (data.items.length === 0) return <NoEvents view={view} />;
  const first = view.before === null;

  return (
    <>
      {isRefetchError && (
        <p role="alert" className="mb-2 text-sm text-rose-700 dark:text-rose-300">
          Could not refresh the activity ({error.message}); showing what was loaded before.
        </p>
      )}
      <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Events, newest first, page {view.page}</caption>
          <thead className="border-b border-zinc-200 text-xs text-zinc-500 uppercase dark:border-zinc-800">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                When
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                What happened
              </th>
              <th scope="col" className="hidden px-3 py-2 font-medium md:table-cell">
                Actor
              </th>
              <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell">
                About
              </th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((event) => {
              const link = eventLink(event, viewer.role);
              return (
                <tr
                  key={event.id}
                  data-event-id={event.id}
                  data-event-type={event.type}
                  className="border-b border-zinc-100 align-top last:border-0 dark:border-zinc-800"
                >
                  <td className="px-3 py-2 text-xs">
                    <Time at={event.at} />
                    <p className="mt-0.5 font-mono text-zinc-500">#{event.id}</p>
                  </td>
                  <td className="max-w-xl px-3 py-2">
                    <p className="break-words">{event.summary}</p>
                    <div className="mt-1 flex flex-wrap items-center gap-1.5 text-xs">
                      <Badge>{event.type}</Badge>
                      {first && seenUpTo !== null && event.id > seenUpTo && <Badge tone="accent">new</Badge>}
                      {/* Narrow screens: the actor and the link, folded into this cell. */}
                      <span className="text-zinc-500 md:hidden">
                        by {event.actor}
                        {event.role && ` (${event.role})`}
                      </span>
                    </div>
                    {link && (
                      <p className="mt-1 text-xs sm:hidden">
                        <EventLinkView href={link.href} label={link.label} />
                      </p>
                    )}
                  </td>
                  <td className="hidden px-3 py-2 md:table-cell">
                    <span className="break-all">{event.actor}</span>
                    {event.role && <p className="text-xs text-zinc-500">{event.role}</p>}
                  </td>
                  <td className="hidden px-3 py-2 sm:table-cell">
                    {link ? <EventLinkView href={link.href} label={link.label} /> : <span className="text-zinc-500">—</span>}
                    {event.source && <p className="text-xs text-zinc-500">{event.source}</p>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <nav aria-label="Pages" className="mt-3 flex flex-wrap items-center gap-3 text-sm">
        <span className="text-zinc-600 dark:text-zinc-400">Page {view.page}</span>
        {!first && <PageLink href={activityHref({ ...view, before: null, page: 1 })}>Newest events</PageLink>}
        {data.nextCursor ? (
          <PageLink href={activityHref({ ...view, before: data.nextCursor, page: view.page + 1 })}>Older events</PageLink>
        ) : (
          <span className="text-zinc-500">{first ? "All matching events shown" : "Oldest events reached"}</span>
        )}
      </nav>
    </>
  );
}

function EventLinkView({ href, label }: { href: string; label: string }) {
  return (
    <Link href={href} prefetch={false} className="break-all text-sky-700 underline-offset-2 hover:underline dark:text-sky-300">
      {label}
    </Link>
  );
}

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

/** "None match", "no more", or "nothing has happened yet": each says what to do next. */
function NoEvents({ view }: { view: ActivityView }) {
  if (view.before !== null) {
    return (
      <EmptyState title="No older events.">
        <Link href={activityHref({ ...view, before: null, page: 1 })} prefetch={false} className="underline">
          Back to the newest events
        </Link>
      </EmptyState>
    );
  }
  if (hasFilters(view)) {
    return (
      <EmptyState title="No events match these filters.">
        <Link href={activityHref(clearFilters())} prefetch={false} className="underline">
          Reset filters
        </Link>{" "}
        to see every event.
      </EmptyState>
    );
  }
  return <EmptyState title="Nothing has happened yet.">Every change an agent or a person makes to the ledger will be listed here as it happens.</EmptyState>;
}

function ActivitySkeleton() {
  return (
    <div aria-hidden data-testid="activity-skeleton" className="space-y-2 rounded-lg border border-zinc-200 bg-white p-3 dark:border-zinc-800 dark:bg-zinc-900">
      {Array.from({ length: 8 }, (_, i) => (
        <div key={i} className="h-10 animate-pulse rounded bg-zinc-100 dark:bg-zinc-800" />
      ))}
    </div>
  );
}
