import type { Metadata } from "next";
import { Suspense } from "react";
import { HydrateClient, getQueryClient, trpc } from "@/app/trpc/server";
import { AnalyticsFigures, AnalyticsShell } from "./analytics-client";
import { type AnalyticsView, parseAnalyticsView, toOverviewInput } from "./analytics-view";
import { FiguresSkeleton } from "./figures-skeleton";

export const metadata: Metadata = { title: "Analytics · Proofgate" };

type SearchParams = Record<string, string | string[] | undefined>;

/** Analytics across sessions, for the filters in the address. The header and filters show at once; the figures stream in. */
export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { view, problems } = parseAnalyticsView(await searchParams);
  return (
    <div>
      <header className="mb-4">
        <h1 className="text-2xl font-semibold">Analytics</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">How honest completion claims are, across sessions: what was claimed, verified, blocked, reset and attempted.</p>
      </header>
      <AnalyticsShell initial={view} problems={problems}>
        <Suspense fallback={<FiguresSkeleton />}>
          <PrefetchedFigures view={view} />
        </Suspense>
      </AnalyticsShell>
    </div>
  );
}

/**
 * Waits for the overview before rendering the figures, so the server's HTML and the browser's
 * first render both hold the data (the client reads it with useQuery, which, unlike a suspending
 * query, keeps the previous figures on screen while new filters load). A failed load is not
 * dehydrated: the client then fetches it again and shows the error.
 */
async function PrefetchedFigures({ view }: { view: AnalyticsView }) {
  await getQueryClient().prefetchQuery(trpc.analytics.overview.queryOptions(toOverviewInput(view)));
  return (
    <HydrateClient>
      <AnalyticsFigures />
    </HydrateClient>
  );
}
