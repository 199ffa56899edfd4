"use client";
// The browser side of tRPC: one QueryClient per tab and a batched HTTP link to /api/trpc.
import type { QueryClient } from "@tanstack/react-query";
import { QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink } from "@trpc/client";
import { MAX_TRPC_BATCH } from "@/server/trpc/schemas";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useEffect, useState, type ReactNode } from "react";
import superjson from "superjson";
import type { AppRouter } from "@/server/trpc/root";
import { makeQueryClient } from "./query-client";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;

function getQueryClient(): QueryClient {
  // On the server every render gets a fresh client so users never share a cache.
  if (typeof window === "undefined") return makeQueryClient();
  // In the browser keep one, or React would throw it away whenever a render suspends.
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: "/api/trpc", transformer: superjson, maxItems: MAX_TRPC_BATCH })],
    }),
  );
  // A marker end-to-end tests wait for: set when the root hydrates, before the Suspense boundaries
  // below it do (e2e/support.ts waitForApp also waits for the browser to be idle).
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
