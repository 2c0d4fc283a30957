import { HydrationBoundary, dehydrate } from "@tanstack/react-query";
import { type TRPCQueryOptions, createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { type ReactNode, cache } from "react";
import { openSharedLedger } from "@/db/client";
import { createRequestContext } from "@/server/api/context";
import { appRouter, createCaller } from "@/server/api/root";
import { getAuth } from "@/server/auth/instance";
import { makeQueryClient } from "./query-client";

/** One query client per server request, shared by every server component rendering it. */
export const getQueryClient = cache(makeQueryClient);

/** The caller's context, built once per request from its cookies, exactly as the HTTP handler does. */
const requestContext = cache(async () => {
  const request = new Request("http://proofgate.internal/", { headers: await headers() });
  // Each of Next's bundles holds its own handle on the ledger, opened on its first request (on PostgreSQL: connected).
  return createRequestContext(request, await openSharedLedger(), getAuth());
});

/** Server components call procedures in-process (no HTTP) and with the signed-in person's role. */
export const trpc = createTRPCOptionsProxy({ router: appRouter, ctx: requestContext, queryClient: getQueryClient });

/**
 * Runs queries on the server before the page renders; `HydrateClient` then hands their results to
 * the client's cache. Awaited, so the data is in the page's first HTML: a query left to stream
 * would arrive as a hidden part of the page that React shows up to 300 ms after the rest has been
 * painted (it reveals streamed parts together). A failed query is not handed over: the client asks
 * again and shows the error.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the options of any procedure
export async function prefetch(...queries: ReturnType<TRPCQueryOptions<any>>[]): Promise<void> {
  await getLiveFrom();
  await Promise.all(queries.map((options) => getQueryClient().prefetchQuery(options)));
}

/**
 * The newest event id when this request began reading: read once per request, before any of its
 * queries, so every event after it may be missing from the page's data. The page's live stream
 * starts right after it, so a write that lands between the render and the stream's connection is
 * still delivered (and the page refreshed) instead of lost. Null for a visitor who may not read.
 */
export const getLiveFrom = cache(async (): Promise<number | null> => {
  const context = await requestContext();
  if (!context.actor) return null;
  return createCaller(context).events.latestId();
});

/**
 * When this request is being rendered: one time for the whole request, so every "3h ago" the
 * server renders counts from the same moment, and hydration (RenderedAtProvider) from it too.
 */
export const getRenderedAt = cache((): number => Date.now());

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

/** The signed-in person (or null), as the API sees them: pages use it to offer only what the role may do. */
export const getViewer = cache(async () => (await requestContext()).actor);

/** Whether this install has no users yet (`setup.status`): the first visitor is sent to set up, later ones to sign in. */
export const getNeedsSetup = cache(async () => (await createCaller(await requestContext()).setup.status()).needsSetup);
