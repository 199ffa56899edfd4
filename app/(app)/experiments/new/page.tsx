import type { Metadata } from "next";
import { EXPERIMENTS_PARAM, versionChoicesInput } from "@/components/experiments/experiment-url";
import { NewExperimentForm } from "@/components/experiments/new-experiment-form";
import { Notice } from "@/components/ui/notice";
import { isUuid, toSearchParams } from "@/components/ui/search-params";
import { roleAtLeast } from "@/server/auth/schemas";
import { getQueryClient, getSession, HydrateClient, trpc } from "@/server/trpc/rsc";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "New experiment" };

export default async function NewExperimentPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { identity } = await getSession();
  if (identity.kind === "anonymous" || !roleAtLeast(identity.role, "curator")) {
    return (
      <div className="max-w-2xl pt-8">
        <Notice tone="info" title="Only curators and admins create experiments">
          Ask an admin for the curator role if you need to run one.
        </Notice>
      </div>
    );
  }
  const playbook = toSearchParams(await searchParams).get(EXPERIMENTS_PARAM.playbook);
  const queryClient = getQueryClient();
  const playbooks = await queryClient.fetchQuery(trpc.playbook.list.queryOptions());
  const initialPlaybookId = isUuid(playbook) && playbooks.some((p) => p.id === playbook) ? playbook : null;
  // The pinned control's version picker opens with the chosen playbook's versions already there.
  if (initialPlaybookId) await queryClient.prefetchQuery(trpc.history.versions.queryOptions(versionChoicesInput(initialPlaybookId)));
  return (
    <HydrateClient>
      <NewExperimentForm initialPlaybookId={initialPlaybookId} />
    </HydrateClient>
  );
}
