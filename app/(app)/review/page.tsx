import type { Metadata } from "next";
import { prefetchQueue } from "./prefetch-queue";
import { ReviewView } from "@/components/deltas/review-view";
import { HydrateClient } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Review" };

export default async function ReviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await prefetchQueue(undefined, await searchParams);
  return (
    <HydrateClient>
      <div className="pb-5 pt-8">
        <h1 className="text-2xl font-semibold tracking-tight text-ink">Review</h1>
        <p className="mt-1 text-sm text-ink-muted">
          Changes proposed to every playbook, by the curator, pruning and people. Approve, edit or reject them.
        </p>
      </div>
      <ReviewView />
    </HydrateClient>
  );
}
