// What the queue pages put into the first HTML: the list for the filters in the URL and the delta
// it opens (the linked one, or the first), so the page is readable before hydration.
import "server-only";
import { toSearchParams } from "@/components/ui/search-params";
import { OFFSET_PAGES } from "@/components/trpc/offset-pages";
import { getQueryClient, trpc } from "@/server/trpc/rsc";
import { deltaListInput, parseDeltaId, parseReviewFilters, REVIEW_PARAM } from "@/components/shared/review-url";

export async function prefetchQueue(
  playbookId: string | undefined,
  searchParams: Record<string, string | string[] | undefined>,
): Promise<void> {
  const query = toSearchParams(searchParams);
  const queryClient = getQueryClient();
  // The queue's change signature first: the page compares later polls with it, so a change made
  // while the list and the delta are read (or before the page hydrates) still shows as a change.
  await queryClient.prefetchQuery(trpc.delta.watch.queryOptions(playbookId ? { playbookId } : {}));
  const pages = await queryClient.fetchInfiniteQuery(
    trpc.delta.list.infiniteQueryOptions(deltaListInput(playbookId, parseReviewFilters(query)), OFFSET_PAGES),
  );
  const deltaId = parseDeltaId(query.get(REVIEW_PARAM.delta)) ?? pages.pages[0]?.items[0]?.id;
  if (deltaId) await queryClient.prefetchQuery(trpc.delta.get.queryOptions({ deltaId }));
}
