import type { Metadata } from "next";
import { PlaybookRuns } from "@/components/runs/playbook-runs";
import { playbookRunsInputs } from "@/components/runs/runs-url";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadPlaybook, playbookTitle } from "../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await playbookTitle(params, "Runs") };
}

export default async function PlaybookRunsPage({ params }: Props) {
  const { playbookId } = await params;
  await loadPlaybook(playbookId);
  const inputs = playbookRunsInputs(playbookId);
  const queryClient = getQueryClient();
  // The status and both lists go into the first HTML: the tab opens complete.
  await Promise.all([
    queryClient.prefetchQuery(trpc.runs.status.queryOptions(inputs.status)),
    queryClient.prefetchQuery(trpc.runs.list.queryOptions(inputs.runs)),
    queryClient.prefetchQuery(trpc.traces.list.queryOptions(inputs.traces)),
  ]);
  return (
    <HydrateClient>
      <PlaybookRuns playbookId={playbookId} />
    </HydrateClient>
  );
}
