// The playbook a route under /playbooks/[playbookId] is about, or a 404 for a malformed or
// unknown id. cache(): the layout, the page and their metadata share one read per request.
import "server-only";
import { notFound } from "next/navigation";
import { cache } from "react";
import { isUuid } from "@/components/ui/search-params";
import { getQueryClient, trpc } from "@/server/trpc/rsc";

function isNotFoundError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "NOT_FOUND";
}

export const loadPlaybook = cache(async (playbookId: string) => {
  if (!isUuid(playbookId)) notFound();
  try {
    return await getQueryClient().fetchQuery(trpc.playbook.get.queryOptions({ playbookId }));
  } catch (error) {
    if (isNotFoundError(error)) notFound();
    throw error;
  }
});

/** "History · AppWorld": the tab first, so browser tabs stay apart. */
export async function playbookTitle(params: Promise<{ playbookId: string }>, tab?: string): Promise<string> {
  const playbook = await loadPlaybook((await params).playbookId);
  return tab ? `${tab} · ${playbook.name}` : playbook.name;
}
