import type { Metadata } from "next";
import { HydrateClient, getViewer, prefetch, trpc } from "@/app/trpc/server";
import { AnalyticsFigures, AnalyticsShell } from "./analytics-client";
import { parseAnalyticsView, toOverviewInput } from "./analytics-view";

export const metadata: Metadata = { title: "Analytics · Proofgate" };

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * Analytics across sessions, for the filters in the address. The overview (tens of milliseconds,
 * from rollups) is read before the page renders, so its figures are in the first HTML: streamed
 * after the header, they would be shown up to 300 ms after it (React reveals streamed parts
 * together). The client reads it with useQuery, which, unlike a suspending query, keeps the
 * previous figures on screen while new filters load; a failed read is fetched again there and its
 * error shown.
 */
export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  // Signed out: the layout sends them to sign in, and a read for them would log a server error.
  if (!(await getViewer())) return null;
  const { view, problems } = parseAnalyticsView(await searchParams);
  await prefetch(trpc.analytics.overview.queryOptions(toOverviewInput(view)));
  return (
    <div>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">Analytics</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          How honest completion claims are, across sessions: what was claimed, verified, blocked, reset and attempted.
        </p>
      </header>
      <AnalyticsShell initial={view} problems={problems}>
        <HydrateClient>
          <AnalyticsFigures />
        </HydrateClient>
      </AnalyticsShell>
    </div>
  );
}
