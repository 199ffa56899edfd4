import type { Metadata } from "next";
import { UsersView } from "@/components/admin/users-view";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { AdminOnly } from "@/components/admin/admin-only";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Users" };

export default async function UsersPage() {
  return (
    <AdminOnly what="the users">
      <Prefetched />
    </AdminOnly>
  );
}

async function Prefetched() {
  await getQueryClient().prefetchQuery(trpc.users.list.queryOptions());
  return (
    <HydrateClient>
      <UsersView />
    </HydrateClient>
  );
}
