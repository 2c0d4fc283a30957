import type { Metadata } from "next";
import { HydrateClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { ActivityClient } from "./activity-client";
import { parseActivityView, toSearchInput } from "./activity-view";

export const metadata: Metadata = { title: "Activity · Proofgate" };

/** The audit log: every event, filtered and paged by what the address says; the first page is fetched here, in-process. */
export default async function ActivityPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  // The layout sends a signed-out visitor to sign in; a read started for them would fail and be logged.
  if (!(await getViewer())) return null;
  const { view, problems } = parseActivityView(await searchParams);
  await prefetch(trpc.events.search.queryOptions(toSearchInput(view)), trpc.events.types.queryOptions());
  return (
    <div>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">Activity</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Every change to the ledger, newest first: who did what, when, and where. New events appear at the top as they happen.
        </p>
      </header>
      <HydrateClient>
        <ActivityClient view={view} problems={problems} />
      </HydrateClient>
    </div>
  );
}
