import type { QueryClient } from "@tanstack/react-query";

/**
 * What a live event does to the cached queries: every one is marked stale and those on screen
 * fetch again. A fetch already under way is joined rather than restarted, so a steady stream of
 * writes cannot starve a slow query — but that fetch may have read the ledger before the write the
 * event reports, and its answer would mark the query fresh with the old data until another event
 * came. So the queries on screen that were already fetching are fetched once more after it.
 */
export async function refreshAfterEvent(queryClient: QueryClient): Promise<void> {
  const underWay = new Set(queryClient.getQueryCache().findAll({ type: "active", fetchStatus: "fetching" }));
  await queryClient.invalidateQueries(undefined, { cancelRefetch: false });
  if (underWay.size > 0) await queryClient.invalidateQueries({ predicate: (query) => underWay.has(query) }, { cancelRefetch: false });
}
