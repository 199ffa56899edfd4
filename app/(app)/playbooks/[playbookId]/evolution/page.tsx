import type { Metadata } from "next";
import { EvolutionView } from "@/components/evolution/evolution-view";
import { evolutionQuery } from "@/components/evolution/query";
import { parseEvolutionFilters } from "@/components/evolution/range";
import { toSearchParams } from "@/components/ui/search-params";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { requestTime } from "../../request-time";
import { loadPlaybook, playbookTitle } from "../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await playbookTitle(params, "Evolution") };
}

export default async function PlaybookEvolutionPage({ params, searchParams }: Props) {
  const { playbookId } = await params;
  await loadPlaybook(playbookId);
  const filters = parseEvolutionFilters(toSearchParams(await searchParams));
  const queryClient = getQueryClient();
  const now = requestTime();
  let earliest: number | null = null;
  if (filters.preset === "all") {
    // Where "all" starts comes with any answer: ask for the smallest range first.
    const probe = await queryClient.fetchQuery(
      trpc.metrics.playbook.queryOptions(evolutionQuery(playbookId, { ...filters, preset: "24h" }, now, null).input),
    );
    earliest = probe.earliest ? Date.parse(probe.earliest) : null;
  }
  // The charts' data goes into the first HTML; the client resolves the same range from `now`.
  await queryClient.prefetchQuery(trpc.metrics.playbook.queryOptions(evolutionQuery(playbookId, filters, now, earliest).input));
  return (
    <HydrateClient>
      <EvolutionView playbookId={playbookId} renderedAt={now} initialEarliest={earliest} />
    </HydrateClient>
  );
}
