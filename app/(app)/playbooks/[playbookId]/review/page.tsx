import type { Metadata } from "next";
import { prefetchQueue } from "@/app/(app)/review/prefetch-queue";
import { ReviewView } from "@/components/deltas/review-view";
import { HydrateClient } from "@/server/trpc/rsc";
import { loadPlaybook, playbookTitle } from "../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await playbookTitle(params, "Review") };
}

export default async function PlaybookReviewPage({ params, searchParams }: Props) {
  const { playbookId } = await params;
  await loadPlaybook(playbookId);
  await prefetchQueue(playbookId, await searchParams);
  return (
    <HydrateClient>
      <h2 className="sr-only">Review queue</h2>
      <ReviewView playbookId={playbookId} />
    </HydrateClient>
  );
}
