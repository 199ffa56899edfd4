import type { Metadata } from "next";
import { RetentionView } from "@/components/retention/retention-view";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Retention" };

// Anyone signed in may read it (what will be removed); only an admin changes the default or runs it.
export default async function RetentionPage() {
  await getQueryClient().prefetchQuery(trpc.retention.status.queryOptions());
  return (
    <HydrateClient>
      <RetentionView />
    </HydrateClient>
  );
}
