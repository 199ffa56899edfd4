// The version a /playbooks/[playbookId]/history/[version] page shows, or a 404 for a malformed one
// or one after the playbook's current version.
import "server-only";
import { notFound } from "next/navigation";
import { loadPlaybook } from "../../load-playbook";

function parseVersion(value: string): number | null {
  return /^\d{1,9}$/.test(value) && Number(value) >= 1 ? Number(value) : null;
}

export async function loadVersion(playbookId: string, raw: string): Promise<number> {
  const playbook = await loadPlaybook(playbookId);
  const version = parseVersion(raw);
  if (version === null || version > playbook.version) notFound();
  return version;
}
