import type { Metadata } from "next";
import { toSearchParams } from "@/components/ui/search-params";
import { parseRunFilters, runListInput } from "@/components/runs/runs-url";
import { RunsView } from "@/components/runs/runs-view";
import { OFFSET_PAGES } from "@/components/trpc/offset-pages";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseRunFilters(toSearchParams(await searchParams));
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchInfiniteQuery(trpc.runs.list.infiniteQueryOptions(runListInput(filters), OFFSET_PAGES)),
    queryClient.prefetchQuery(trpc.playbook.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <RunsView />
    </HydrateClient>
  );
}
