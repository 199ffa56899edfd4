import type { Metadata } from "next";
import { toSearchParams } from "@/components/ui/search-params";
import { resolveCompare, versionsInput } from "@/components/history/history-url";
import { HISTORY_PARAM } from "@/components/ui/routes";
import { HistoryView } from "@/components/history/history-view";
import { OFFSET_PAGES } from "@/components/trpc/offset-pages";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadPlaybook, playbookTitle } from "../../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await playbookTitle(params, "History") };
}

export default async function HistoryPage({ params, searchParams }: Props) {
  const { playbookId } = await params;
  const query = toSearchParams(await searchParams);
  const playbook = await loadPlaybook(playbookId);
  const { from, to } = resolveCompare({ from: query.get(HISTORY_PARAM.from), to: query.get(HISTORY_PARAM.to) }, playbook.version);
  const queryClient = getQueryClient();
  // The versions and the change shown first go into the HTML.
  await Promise.all([
    queryClient.prefetchInfiniteQuery(trpc.history.versions.infiniteQueryOptions(versionsInput(playbookId), OFFSET_PAGES)),
    from === to ? null : queryClient.prefetchQuery(trpc.history.diff.queryOptions({ playbookId, from, to })),
  ]);
  return (
    <HydrateClient>
      <HistoryView playbookId={playbookId} />
    </HydrateClient>
  );
}
