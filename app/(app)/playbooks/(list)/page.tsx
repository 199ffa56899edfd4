import type { Metadata } from "next";
import { overviewRange, parseOverviewFilters } from "@/components/evolution/overview-url";
import { StudioOverview } from "@/components/evolution/studio-overview";
import { PlaybooksIndex } from "@/components/playbooks/playbooks-index";
import { toSearchParams } from "@/components/ui/search-params";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { requestTime } from "../request-time";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Playbooks" };

export default async function PlaybooksPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const queryClient = getQueryClient();
  const now = requestTime();
  const overview = overviewRange(parseOverviewFilters(toSearchParams(await searchParams)).preset, now);
  // Awaited so the table is in the first HTML; loading.tsx covers the wait on navigation.
  await Promise.all([
    queryClient.prefetchQuery(trpc.playbook.list.queryOptions()),
    queryClient.prefetchQuery(trpc.metrics.overview.queryOptions(overview.input)),
  ]);
  return (
    <HydrateClient>
      <PlaybooksIndex />
      <StudioOverview renderedAt={now} />
    </HydrateClient>
  );
}
