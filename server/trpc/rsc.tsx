// tRPC for React Server Components: procedures are called in-process (no HTTP), their results go
// into a per-request QueryClient, and <HydrateClient> hands that cache to the client components.
import "server-only";
import { defaultShouldDehydrateQuery, dehydrate, hashKey, HydrationBoundary, type QueryKey } from "@tanstack/react-query";
import { createTRPCOptionsProxy } from "@trpc/tanstack-react-query";
import { headers } from "next/headers";
import { cache, type ReactNode } from "react";
import { makeQueryClient } from "@/components/trpc/query-client";
import { authenticate } from "@/server/auth/authenticate";
import { sessionState } from "@/server/auth/principal";
import type { SessionState } from "@/server/auth/schemas";
import { getDb } from "@/server/db/client";
import { contextFor } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

/** One QueryClient per request: React's cache() scopes it to the current server render. */
export const getQueryClient = cache(makeQueryClient);

/**
 * Who this request acts for, worked out once per render. The headers are read first: while
 * `next build` tries to prerender a page, reading them marks it as rendered on demand, before
 * anything asks for the database (a build opens none).
 */
const authentication = cache(async () => {
  const requestHeaders = await headers();
  return authenticate(await getDb(), requestHeaders);
});

const createContext = cache(async () => {
  const auth = await authentication();
  return contextFor(await getDb(), auth.principal, { request: auth.request, credentialProblem: auth.credentialProblem?.message ?? null });
});

/** Who is looking and what they must do first: layouts redirect to /sign-in or /setup on it. */
export async function getSession(): Promise<SessionState> {
  const auth = await authentication();
  return sessionState(auth.principal, auth.usersExist);
}

/** The path and query of the page being rendered (proxy.ts passes it on), to come back to after signing in. */
export async function currentPath(): Promise<string> {
  const path = (await headers()).get("x-ace-path");
  return path && path.startsWith("/") && !path.startsWith("//") ? path : "/playbooks";
}

export const trpc = createTRPCOptionsProxy({
  ctx: createContext,
  router: appRouter,
  queryClient: getQueryClient,
});

/**
 * Hands the request's settled queries to the client components below. A layout's boundary names
 * its own queries in `only`: the layout and its page share one QueryClient, and without the list
 * the layout would ship the page's answers a second time whenever they settled first (the 90-day
 * Evolution tab's metrics, 350 KB, went out twice).
 */
export function HydrateClient({ children, only }: { children: ReactNode; only?: readonly { queryKey: QueryKey }[] }) {
  const hashes = only ? new Set(only.map((query) => hashKey(query.queryKey))) : null;
  const state = dehydrate(
    getQueryClient(),
    hashes ? { shouldDehydrateQuery: (query) => hashes.has(query.queryHash) && defaultShouldDehydrateQuery(query) } : undefined,
  );
  return <HydrationBoundary state={state}>{children}</HydrationBoundary>;
}
