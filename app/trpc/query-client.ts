import { QueryClient, defaultShouldDehydrateQuery } from "@tanstack/react-query";
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
        // Stream queries that are still pending from server components to the client.
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: superjson.deserialize },
    },
  });
}
