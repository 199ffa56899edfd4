import type { Metadata } from "next";
import { AccountView } from "@/components/auth/account-view";
import { getQueryClient, getSession, HydrateClient, trpc } from "@/server/trpc/rsc";

export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Account" };

export default async function AccountPage() {
  const session = await getSession();
  if (session.identity.kind === "user") await getQueryClient().prefetchQuery(trpc.auth.sessions.queryOptions());
  return (
    <HydrateClient>
      <AccountView />
    </HydrateClient>
  );
}
