// The run a /runs/[runId] page is about, or a 404 for a malformed or unknown id. cache(): the page
// and its metadata share one read per request.
import "server-only";
import { notFound } from "next/navigation";
import { cache } from "react";
import { isUuid } from "@/components/ui/search-params";
import { getQueryClient, trpc } from "@/server/trpc/rsc";

function isNotFoundError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "NOT_FOUND";
}

export const loadRun = cache(async (runId: string) => {
  if (!isUuid(runId)) notFound();
  try {
    return await getQueryClient().fetchQuery(trpc.runs.get.queryOptions({ runId }));
  } catch (error) {
    if (isNotFoundError(error)) notFound();
    throw error;
  }
});
