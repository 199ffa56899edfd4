import { Suspense, type ReactNode } from "react";
import { PlaybookChrome, PlaybookChromeSkeleton } from "@/components/playbooks/playbook-chrome";
import { pendingCountInput } from "@/components/deltas/review-url";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadPlaybook } from "./load-playbook";

// The header and the Bullets · Review · History · Runs · Settings tabs stay put while the tab below
// changes. The layout itself never waits: a suspended layout would show the parent's loading
// state (the playbooks table) on the way in.
export default function PlaybookLayout({ children, params }: { children: ReactNode; params: Promise<{ playbookId: string }> }) {
  return (
    <>
      <Suspense fallback={<PlaybookChromeSkeleton />}>
        <Chrome params={params} />
      </Suspense>
      {children}
    </>
  );
}

async function Chrome({ params }: { params: Promise<{ playbookId: string }> }) {
  const { playbookId } = await params;
  // The pending count too: a badge that pops in after hydration would push the other tabs aside.
  await Promise.all([loadPlaybook(playbookId), getQueryClient().prefetchQuery(trpc.delta.list.queryOptions(pendingCountInput(playbookId)))]);
  return (
    <HydrateClient>
      <PlaybookChrome playbookId={playbookId} />
    </HydrateClient>
  );
}
