import type { Metadata } from "next";
import { ApiKeysView } from "@/components/admin/api-keys-view";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { AdminOnly } from "@/components/admin/admin-only";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "API keys" };

export default async function ApiKeysPage() {
  return (
    <AdminOnly what="the API keys">
      <Prefetched />
    </AdminOnly>
  );
}

async function Prefetched() {
  await getQueryClient().prefetchQuery(trpc.apiKeys.list.queryOptions());
  return (
    <HydrateClient>
      <ApiKeysView />
    </HydrateClient>
  );
}
