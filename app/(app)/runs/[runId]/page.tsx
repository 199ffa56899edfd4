import type { Metadata } from "next";
import { ROLE_META } from "@/components/shared/run-labels";
import { shortId } from "@/components/ui/format";
import { RunDetailView } from "@/components/runs/run-detail";
import { HydrateClient } from "@/server/trpc/rsc";
import { loadRun } from "./load-run";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ runId: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const run = await loadRun((await params).runId);
  return { title: `${ROLE_META[run.role].label} run ${shortId(run.id)} · ${run.playbookName}` };
}

export default async function RunPage({ params }: Props) {
  const { runId } = await params;
  await loadRun(runId);
  return (
    <HydrateClient>
      <RunDetailView runId={runId} />
    </HydrateClient>
  );
}
