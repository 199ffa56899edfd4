import type { Metadata } from "next";
import { parsePhaseParam, resultsQueryInput } from "@/components/experiments/experiment-url";
import { ExperimentView } from "@/components/experiments/experiment-view";
import { toSearchParams } from "@/components/ui/search-params";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadExperiment } from "./load-experiment";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ key: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const experiment = await loadExperiment((await params).key);
  return { title: `${experiment.name} · Experiments` };
}

export default async function ExperimentPage({ params, searchParams }: Props) {
  const experiment = await loadExperiment((await params).key);
  const { phase } = parsePhaseParam(toSearchParams(await searchParams));
  const queryClient = getQueryClient();
  // The results and the playbook (its current version decides the rollback offer) go into the HTML.
  // A phase that does not exist fails only the results query; the page says so beside the definition.
  await Promise.all([
    queryClient.prefetchQuery(trpc.experiments.results.queryOptions(resultsQueryInput(experiment.key, phase))),
    queryClient.prefetchQuery(trpc.playbook.get.queryOptions({ playbookId: experiment.playbookId })),
  ]);
  return (
    <HydrateClient>
      <ExperimentView experimentKey={experiment.key} />
    </HydrateClient>
  );
}
