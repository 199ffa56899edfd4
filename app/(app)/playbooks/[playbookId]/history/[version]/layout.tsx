import type { ReactNode } from "react";
import { loadVersion } from "./load-version";

// Checks the version before anything renders, outside every loading.tsx, so a version the playbook
// does not have is a 404, not a not-found page streamed with status 200.
export default async function VersionLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ playbookId: string; version: string }>;
}) {
  const { playbookId, version } = await params;
  await loadVersion(playbookId, version);
  return children;
}
