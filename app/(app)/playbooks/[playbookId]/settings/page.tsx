import type { Metadata } from "next";
import { RedactionSettingsCard } from "@/components/playbooks/redaction-settings";
import { PlaybookRetentionCard } from "@/components/retention/playbook-retention";
import { SettingsForm } from "@/components/playbooks/settings-form";
import { HydrateClient } from "@/server/trpc/rsc";
import { loadPlaybook, playbookTitle } from "../load-playbook";

// Reads the database on every request; nothing is prerendered at build time.
export const dynamic = "force-dynamic";

interface Props {
  params: Promise<{ playbookId: string }>;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: await playbookTitle(params, "Settings") };
}

export default async function SettingsPage({ params }: Props) {
  const { playbookId } = await params;
  await loadPlaybook(playbookId);
  return (
    <HydrateClient>
      <div className="mx-auto flex max-w-4xl flex-col gap-6">
        <SettingsForm playbookId={playbookId} />
        <RedactionSettingsCard playbookId={playbookId} />
        <PlaybookRetentionCard playbookId={playbookId} />
      </div>
    </HydrateClient>
  );
}
