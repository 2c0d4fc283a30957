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
 * What a component shows while its queries have no data: the skeleton (`children`) while they load,
 * and a failed load as a failure (never as empty data) with a retry that asks again every query
 * that failed. `query`: the one query the component waits for, or all of them.
 *
 * Components read their queries with `useQuery` and return this until the data is there, rather
 * than suspending inside a `<Suspense>` boundary. The server renders every page with its queries
 * already answered (`prefetch` in app/trpc/server.tsx), and React 19.2 moves a Suspense boundary
 * whose HTML passes 12.8 KB out of the page's flow even when nothing in it suspended: it arrives as
 * a hidden part of the page, shown up to 300 ms after the rest has been painted.
 */
export function QueryFallback({
  query,
  errorTitle,
  children,
}: {
  query: FailedOrLoading | readonly FailedOrLoading[];
  errorTitle: string;
  children: ReactNode;
}) {
  const failed = (Array.isArray(query) ? query : [query]).filter((q: FailedOrLoading) => q.isError);
  if (failed.length === 0) return children;
  return (
    <div className="space-y-2">
      <ErrorState title={errorTitle} error={failed[0]!.error} />
      <Button variant="secondary" onClick={() => failed.forEach((q) => void q.refetch())}>
        Try again
      </Button>
    </div>
  );
}

/** Where a part of a page will be while the browser loads its data. */
export function LoadingBlock({ label, className = "h-32" }: { label: string; className?: string }) {
  return (
    <div role="status" className={`${className} animate-pulse rounded-lg bg-zinc-100 p-4 text-sm text-zinc-500 dark:bg-zinc-900`}>
      {label}
    </div>
  );
}
