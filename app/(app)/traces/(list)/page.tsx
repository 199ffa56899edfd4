import type { Metadata } from "next";
import { toSearchParams } from "@/components/ui/search-params";
import { TraceExplorer } from "@/components/traces/trace-explorer";
import { parseTraceFilters, TRACE_PAGES, traceListInput } from "@/components/shared/trace-url";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Traces" };

export default async function TracesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseTraceFilters(toSearchParams(await searchParams));
  const queryClient = getQueryClient();
  // The first page for the filters in the URL goes into the HTML: a shared link opens complete.
  await Promise.all([
    queryClient.prefetchInfiniteQuery(trpc.traces.list.infiniteQueryOptions(traceListInput(filters), TRACE_PAGES)),
    queryClient.prefetchQuery(trpc.playbook.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <TraceExplorer />
    </HydrateClient>
  );
}
