"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useTRPC } from "@/app/trpc/client";
import type { AppRouter } from "@/server/api/root";
import { type InboxView, inboxPaging, toCountInput, toInboxInput } from "./inbox-view";

/** One blocked task waiting for a decision, with what the decision needs (`task.inbox`). */
export type ApprovalItem = inferRouterOutputs<AppRouter>["task"]["inbox"]["items"][number];

/**
 * The blocked tasks the view's filters admit, reset requests first, then the longest-waiting first,
 * a page at a time; and how many match in all. Both refresh with the live stream. `loaded` is null
 * until both have answered; `queries` are the two, for QueryFallback. While a new filter loads, the
 * previous answer stays on screen.
 */
export function useInbox(view: InboxView) {
  const trpc = useTRPC();
  const inbox = useInfiniteQuery({ ...trpc.task.inbox.infiniteQueryOptions(toInboxInput(view), inboxPaging), placeholderData: keepPreviousData });
  const count = useQuery({ ...trpc.task.inboxCount.queryOptions(toCountInput(view)), placeholderData: keepPreviousData });
  return {
    loaded: inbox.data && count.data ? { items: inbox.data.pages.flatMap((page) => page.items), count: count.data } : null,
    queries: [inbox, count],
    hasMore: inbox.hasNextPage,
    loadMore: () => void inbox.fetchNextPage(),
    loadingMore: inbox.isFetchingNextPage,
  };
}
