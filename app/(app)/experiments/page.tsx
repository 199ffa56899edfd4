import type { Metadata } from "next";
import { experimentListInput, parseExperimentFilters } from "@/components/experiments/experiment-url";
import { ExperimentsView } from "@/components/experiments/experiments-view";
import { toSearchParams } from "@/components/ui/search-params";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Experiments" };

export default async function ExperimentsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseExperimentFilters(toSearchParams(await searchParams));
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.experiments.list.queryOptions(experimentListInput(filters))),
    queryClient.prefetchQuery(trpc.playbook.list.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <ExperimentsView />
    </HydrateClient>
  );
}
