import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { PlaybookAtVersionView } from "@/components/history/playbook-at-version";
import { getQueryClient, HydrateClient, trpc } from "@/server/trpc/rsc";
import { loadPlaybook, playbookTitle } from "../../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string; version: string }>;
}

function parseVersion(value: string): number | null {
  return /^\d{1,9}$/.test(value) && Number(value) >= 1 ? Number(value) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { version } = await params;
  return { title: await playbookTitle(params, `v${version}`) };
}

export default async function PlaybookAtVersionPage({ params }: Props) {
  const { playbookId, version: raw } = await params;
  const playbook = await loadPlaybook(playbookId);
  const version = parseVersion(raw);
  if (version === null || version > playbook.version) notFound();
  await getQueryClient().prefetchQuery(trpc.history.at.queryOptions({ playbookId, version, includeArchived: false }));
  return (
    <HydrateClient>
      <PlaybookAtVersionView playbookId={playbookId} version={version} />
    </HydrateClient>
  );
}
