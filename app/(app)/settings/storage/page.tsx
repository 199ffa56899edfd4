import type { Metadata } from "next";
import { AdminOnly } from "@/components/admin/admin-only";
import { StorageView } from "@/components/admin/storage-view";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Storage" };

export default async function StoragePage() {
  return (
    <AdminOnly what="the storage figures">
      <Prefetched />
    </AdminOnly>
  );
}

async function Prefetched() {
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.storage.report.queryOptions()),
    queryClient.prefetchQuery(trpc.retention.preview.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <StorageView />
    </HydrateClient>
  );
}
