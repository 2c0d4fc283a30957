"use client";

import { useSuspenseInfiniteQuery, useSuspenseQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useTRPC } from "@/app/trpc/client";
import type { AppRouter } from "@/server/api/root";
import { INBOX_INPUT, inboxPaging } from "./inbox-input";

/** One blocked task waiting for a decision, with what the decision needs (`task.inbox`). */
export type ApprovalItem = inferRouterOutputs<AppRouter>["task"]["inbox"]["items"][number];

/**
 * Every blocked task across sessions, reset requests first, then the longest-waiting first, a page
 * at a time; and how many there are in all. Both refresh with the live stream.
 */
export function useInbox() {
  const trpc = useTRPC();
  const inbox = useSuspenseInfiniteQuery(trpc.task.inbox.infiniteQueryOptions(INBOX_INPUT, inboxPaging));
  const { data: count } = useSuspenseQuery(trpc.task.inboxCount.queryOptions());
  return {
    items: inbox.data.pages.flatMap((page) => page.items),
    count,
    hasMore: inbox.hasNextPage,
    loadMore: () => void inbox.fetchNextPage(),
    loadingMore: inbox.isFetchingNextPage,
  };
}
