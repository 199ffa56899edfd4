import type { Metadata } from "next";
import { BULLET_PAGES } from "@/components/playbooks/bullet-pages";
import { bulletQueryInput, PARAM, parseFilters } from "@/components/playbooks/filters";
import { toSearchParams } from "@/components/ui/search-params";
import { PlaybookView } from "@/components/playbooks/playbook-view";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadPlaybook, playbookTitle } from "../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await playbookTitle(params) };
}

export default async function PlaybookPage({ params, searchParams }: Props) {
  const { playbookId } = await params;
  const query = toSearchParams(await searchParams);
  const bullet = query.get(PARAM.bullet);
  const queryClient = getQueryClient();
  // The first page of bullets for the filters in the URL, and the linked bullet if any, go into
  // the HTML: a shared link opens complete, without a loading flash.
  await Promise.all([
    loadPlaybook(playbookId),
    queryClient.prefetchInfiniteQuery(
      trpc.playbook.bullets.infiniteQueryOptions(bulletQueryInput(playbookId, parseFilters(query)), BULLET_PAGES),
    ),
    bullet ? queryClient.prefetchQuery(trpc.playbook.bullet.queryOptions({ playbookId, externalId: bullet })) : null,
  ]);
  return (
    <HydrateClient>
      <PlaybookView playbookId={playbookId} />
    </HydrateClient>
  );
}
