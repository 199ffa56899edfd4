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
  await getQueryClient().prefetchQuery(trpc.storage.report.queryOptions());
  return (
    <HydrateClient>
      <StorageView />
    </HydrateClient>
  );
}
