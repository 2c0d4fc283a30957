"use client";

import type { ReactNode } from "react";
import { Button } from "@/app/ui/button";
import { ErrorState } from "@/app/ui/states";

/** What a query's result offers this component: enough to show a failure and try again. */
interface FailedOrLoading {
  isError: boolean;
  error: unknown;
  refetch: () => unknown;
}

/**
 * What a component shows while its query has no data: the skeleton (`children`) while it loads, and
 * a failed load as a failure (never as empty data) with a retry.
 *
 * Components read their queries with `useQuery` and return this until the data is there, rather
 * than suspending inside a `<Suspense>` boundary. The server renders every page with its queries
 * already answered (`prefetch` in app/trpc/server.tsx), and React 19.2 moves a Suspense boundary
 * whose HTML passes 12.8 KB out of the page's flow even when nothing in it suspended: it arrives as
 * a hidden part of the page, shown up to 300 ms after the rest has been painted.
 */
export function QueryFallback({ query, errorTitle, children }: { query: FailedOrLoading; errorTitle: string; children: ReactNode }) {
  if (!query.isError) return children;
  return (
    <div className="space-y-2">
      <ErrorState title={errorTitle} error={query.error} />
      <Button variant="secondary" onClick={() => void query.refetch()}>
        Try again
      </Button>
    </div>
  );
}
