import type { Metadata } from "next";
import { AUDIT_PAGES, auditListInput, readAuditSearch } from "@/components/admin/audit-url";
import { AuditView } from "@/components/admin/audit-view";
import { toSearchParams } from "@/components/ui/search-params";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { AdminOnly } from "@/components/admin/admin-only";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = readAuditSearch(toSearchParams(await searchParams));
  return (
    <AdminOnly what="the audit log">
      <Prefetched input={auditListInput(search)} />
    </AdminOnly>
  );
}

async function Prefetched({ input }: { input: ReturnType<typeof auditListInput> }) {
  await getQueryClient().prefetchInfiniteQuery(trpc.audit.list.infiniteQueryOptions(input, AUDIT_PAGES));
  return (
    <HydrateClient>
      <AuditView />
    </HydrateClient>
  );
}
