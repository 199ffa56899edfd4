import type { Metadata } from "next";
import { PlaybooksIndex } from "@/components/playbooks/playbooks-index";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Playbooks" };

export default async function PlaybooksPage() {
  // Awaited so the table is in the first HTML; loading.tsx covers the wait on navigation.
  await getQueryClient().prefetchQuery(trpc.playbook.list.queryOptions());
  return (
    <HydrateClient>
      <PlaybooksIndex />
    </HydrateClient>
  );
}
