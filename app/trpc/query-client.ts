import { QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

/**
 * One factory for the browser's and the server's query clients. Data stays fresh until the live
 * event stream says otherwise (see app/live), so nothing polls; superjson carries Dates across
 * the server → client hydration as it does over HTTP.
 */
export function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 60_000, refetchOnWindowFocus: false, retry: 1 },
      dehydrate: {
        serializeData: superjson.serialize,
        // Only answered queries (the default): pages await their reads before rendering (app/trpc/server.tsx).
        // A layout renders beside its page with the same query client, and a page's query still pending
        // when the layout dehydrated would reach the browser's cache first, as a promise; the page's
        // answer would then be applied after the first render instead of during it.
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
