import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { cache } from "react";
import { bulletQueryInput, isUuid, nextBulletCursor, PARAM, parseFilters, toSearchParams } from "@/components/playbooks/filters";
import { PlaybookView } from "@/components/playbooks/playbook-view";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

function isNotFoundError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "NOT_FOUND";
}

/** The playbook, or a 404 for a malformed or unknown id. Shared by the metadata and the page. */
const loadPlaybook = cache(async (playbookId: string) => {
  if (!isUuid(playbookId)) notFound();
  try {
    return await getQueryClient().fetchQuery(trpc.playbook.get.queryOptions({ playbookId }));
  } catch (error) {
    if (isNotFoundError(error)) notFound();
    throw error;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const playbook = await loadPlaybook((await params).playbookId);
  return { title: playbook.name };
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
      trpc.playbook.bullets.infiniteQueryOptions(bulletQueryInput(playbookId, parseFilters(query)), {
        getNextPageParam: nextBulletCursor,
      }),
    ),
    bullet ? queryClient.prefetchQuery(trpc.playbook.bullet.queryOptions({ playbookId, externalId: bullet })) : null,
  ]);
  return (
    <HydrateClient>
      <PlaybookView playbookId={playbookId} />
    </HydrateClient>
  );
}
