"use client";

import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useTRPC } from "@/app/trpc/client";
import type { AppRouter } from "@/server/api/root";
import { INBOX_INPUT, inboxPaging } from "./inbox-input";

/** One blocked task waiting for a decision, with what the decision needs (`task.inbox`). */
export type ApprovalItem = inferRouterOutputs<AppRouter>["task"]["inbox"]["items"][number];

/**
 * Every blocked task across sessions, reset requests first, then the longest-waiting first, a page
 * at a time; and how many there are in all. Both refresh with the live stream. `loaded` is null
 * until both have answered; `queries` are the two, for QueryFallback.
 */
export function useInbox() {
  const trpc = useTRPC();
  const inbox = useInfiniteQuery(trpc.task.inbox.infiniteQueryOptions(INBOX_INPUT, inboxPaging));
  const count = useQuery(trpc.task.inboxCount.queryOptions());
  return {
    loaded: inbox.data && count.data ? { items: inbox.data.pages.flatMap((page) => page.items), count: count.data } : null,
    queries: [inbox, count],
    hasMore: inbox.hasNextPage,
    loadMore: () => void inbox.fetchNextPage(),
    loadingMore: inbox.isFetchingNextPage,
  };
}
