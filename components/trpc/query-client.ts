// One QueryClient factory for the server (per request) and the browser (one per tab), so both
// serialise through superjson the same way and hydrated Dates stay Dates.
import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import superjson from "superjson";

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Long enough that data prefetched on the server is not refetched right after hydration.
        staleTime: 30_000,
        refetchOnWindowFocus: false,
      },
      dehydrate: {
        serializeData: superjson.serialize,
        // Pending queries are dehydrated too, so a prefetch that is not awaited streams in.
        shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: {
        deserializeData: superjson.deserialize,
      },
    },
  });
}
