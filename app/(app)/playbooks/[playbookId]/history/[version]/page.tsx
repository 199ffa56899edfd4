import type { Metadata } from "next";
import { PlaybookAtVersionView } from "@/components/history/playbook-at-version";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { playbookTitle } from "../../load-playbook";
import { loadVersion } from "./load-version";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string; version: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { version } = await params;
  return { title: await playbookTitle(params, `v${version}`) };
}

export default async function PlaybookAtVersionPage({ params }: Props) {
  const { playbookId, version: raw } = await params;
  const version = await loadVersion(playbookId, raw);
  await getQueryClient().prefetchQuery(trpc.history.at.queryOptions({ playbookId, version, includeArchived: false }));
  return (
    <HydrateClient>
      <PlaybookAtVersionView playbookId={playbookId} version={version} />
    </HydrateClient>
  );
}
