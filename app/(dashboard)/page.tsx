import type { Metadata } from "next";
import { HydrateClient, getQueryClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { OverviewClient } from "./overview-client";
import { LIVE_INPUT, activityInput } from "./overview-queries";

export const metadata: Metadata = { title: "Overview · Proofgate" };

/** What is happening now across every session; the data is fetched here, in-process, and stays live in the browser. */
export default async function OverviewPage() {
  // The layout sends a signed-out visitor away; the page renders beside it, so it must not read for them.
  if (!(await getViewer())) return null;
  prefetch(trpc.session.list.queryOptions(LIVE_INPUT));
  const latest = await getQueryClient().fetchQuery(trpc.events.latestId.queryOptions());
  prefetch(trpc.events.list.queryOptions(activityInput(latest)));
  return (
    <div>
      <header className="mb-6">
        <h1 className="text-2xl font-semibold">Overview</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Completion claims, verification and gates across your agent sessions, as they happen.</p>
      </header>
      <HydrateClient>
        <OverviewClient />
      </HydrateClient>
    </div>
  );
}
