// The tRPC inputs of the Evolution tab and the studio overview, built from the URL the same way on
// the server page (prefetch) and in the browser (query), or the prefetched cache entry would be missed.
import type { z } from "zod";
import type { overviewInput, playbookMetricsInput } from "@/server/metrics/schemas";
import { resolveRange, type EvolutionFilters, type ResolvedRange } from "./range";

export type PlaybookMetricsInput = z.input<typeof playbookMetricsInput>;
export type OverviewInput = z.input<typeof overviewInput>;

/** The range, and the metrics.playbook input for it. */
export function evolutionQuery(
  playbookId: string,
  filters: EvolutionFilters,
  now: number,
  earliest: number | null,
): { range: ResolvedRange; input: PlaybookMetricsInput } {
  const range = resolveRange(filters, now, earliest);
  const variant = filters.variant.trim();
  return {
    range,
    input: {
      playbookId,
      from: range.from,
      to: range.to,
      bucket: range.bucket,
      ...(variant ? { variant } : {}),
      contentOnly: !filters.allVersions,
    },
  };
}
