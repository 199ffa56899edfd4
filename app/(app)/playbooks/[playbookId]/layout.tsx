import { Suspense, type ReactNode } from "react";
import { PlaybookChrome, PlaybookChromeSkeleton } from "@/components/playbooks/playbook-chrome";
import { pendingCountInput } from "@/components/shared/review-url";
import { runningExperimentsInput } from "@/components/experiments/experiment-url";
import { PlaybookExperiments } from "@/components/experiments/playbook-experiments";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadPlaybook } from "./load-playbook";

// The header and the Bullets · Review · History · Runs · Settings tabs stay put while the tab below
// changes. The layout reads the playbook before anything renders, outside every loading.tsx (the
// list's and the tabs' sit in route groups below or beside it): a loading state streams the page
// with status 200, after which notFound() can no longer make it a 404. The read is cached per
// request, so the header and the tab use it again.
export default async function PlaybookLayout({ children, params }: { children: ReactNode; params: Promise<{ playbookId: string }> }) {
  await loadPlaybook((await params).playbookId);
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
  // The pending count and the running experiments too: anything that pops in after hydration would
  // push the tabs aside.
  const queryClient = getQueryClient();
  // The header's own queries, and only those in its hydration state: the page's boundary carries the page's.
  const own = {
    playbook: trpc.playbook.get.queryOptions({ playbookId }),
    pending: trpc.delta.list.queryOptions(pendingCountInput(playbookId)),
    running: trpc.experiments.list.queryOptions(runningExperimentsInput(playbookId)),
  };
  await Promise.all([loadPlaybook(playbookId), queryClient.prefetchQuery(own.pending), queryClient.prefetchQuery(own.running)]);
  return (
    <HydrateClient only={Object.values(own)}>
      <PlaybookChrome playbookId={playbookId} experiments={<PlaybookExperiments playbookId={playbookId} />} />
    </HydrateClient>
  );
}
