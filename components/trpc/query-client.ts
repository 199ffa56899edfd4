// One QueryClient factory for the server (per request) and the browser (one per tab), so both
// serialise through superjson the same way and hydrated Dates stay Dates.
import { QueryClient } from "@tanstack/react-query";
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
        // Settled queries only (the default). Every page awaits its prefetches, but a layout and its
        // page share one server QueryClient and render at the same time, so dehydrating pending
        // queries too made the layout's boundary ship the page's bullets as a pending promise (and
        // the page the layout's counts). Hydrated out of order (a click hydrates its own boundary
        // first), a component could render pending where the server had rendered data: React threw
        // the server HTML away (error #418, seen in an end-to-end trace) and the click was lost.
      },
      hydrate: {
        deserializeData: superjson.deserialize,
      },
    },
  });
}
