// tRPC for React Server Components: procedures are called in-process (no HTTP), their results go
// into a per-request QueryClient, and <HydrateClient> hands that cache to the client components.
import "server-only";
import {
  dehydrate,
  HydrationBoundary,
  type FetchQueryOptions,
  type QueryKey,
} from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache, type ReactNode } from "react";
import { makeQueryClient } from "@/components/trpc/query-client";
import { createTRPCContext } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

/** One QueryClient per request: React's cache() scopes it to the current server render. */
export const getQueryClient = cache(makeQueryClient);

const createContext = cache(async () => createTRPCContext({ headers: await headers() }));

export const trpc = createTRPCOptionsProxy({
  ctx: createContext,
  router: appRouter,
  queryClient: getQueryClient,
});

export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

/** Starts a query without waiting; the pending result streams to the client. */
export function prefetch<TQueryFnData, TError, TData, TQueryKey extends QueryKey>(
  options: FetchQueryOptions<TQueryFnData, TError, TData, TQueryKey>,
): void {
  void getQueryClient().prefetchQuery(options);
}
