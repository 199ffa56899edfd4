// The experiment an /experiments/[key] page is about, or a 404 for a malformed or unknown key.
// cache(): the page and its metadata share one read per request.
import "server-only";
import { notFound } from "next/navigation";
import { cache } from "react";
import { experimentKeySchema } from "@/server/experiments/schemas";
import { getQueryClient, trpc } from "@/server/trpc/rsc";

function isNotFoundError(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "NOT_FOUND";
}

function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

export const loadExperiment = cache(async (rawKey: string) => {
  const key = experimentKeySchema.safeParse(decoded(rawKey));
  if (!key.success) notFound();
  try {
    return await getQueryClient().fetchQuery(trpc.experiments.get.queryOptions({ key: key.data }));
  } catch (error) {
    if (isNotFoundError(error)) notFound();
    throw error;
  }
});
