"use client";
// The queue's filters and selected delta, read from the URL and written with the History API (as
// the bullet filters are), so j/k can move through deltas without asking the server for a page.
import { useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { commitSearchParams, useUrlState } from "@/components/ui/use-url-filters";
import type { DeltaOrigin } from "@/server/deltas/schemas";
import {
  parseDeltaId,
  parseReviewFilters,
  REVIEW_PARAM,
  writeReviewFilters,
  type ReviewFilters,
  type ReviewStatus,
} from "@/components/shared/review-url";

/** Another list: the open delta may not be in it, so it starts from its first one. */
function filter(patch: Partial<ReviewFilters>) {
  const params = new URLSearchParams(window.location.search);
  writeReviewFilters(params, { ...parseReviewFilters(params), ...patch });
  params.delete(REVIEW_PARAM.delta);
  commitSearchParams(params, "push");
}

export function useReviewState() {
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseReviewFilters(searchParams), [searchParams]);
  const urlDeltaId = useMemo(() => parseDeltaId(searchParams.get(REVIEW_PARAM.delta)), [searchParams]);
  // The selection changes at once, and the address bar follows (useUrlState says why).
  const [deltaId, setDeltaId] = useUrlState(urlDeltaId);

  const setStatus = useCallback((status: ReviewStatus) => filter({ status }), []);
  const setOrigin = useCallback((origin: DeltaOrigin | null) => filter({ origin }), []);

  /** Clicks push a history entry (Back returns to the list on a phone); j/k replace it. */
  const select = useCallback(
    (id: string | null, mode: "push" | "replace" = "push") => {
      const params = new URLSearchParams(window.location.search);
      if (id) params.set(REVIEW_PARAM.delta, id);
      else params.delete(REVIEW_PARAM.delta);
      setDeltaId(id);
      commitSearchParams(params, mode);
    },
    [setDeltaId],
  );

  return { filters, deltaId, setStatus, setOrigin, select };
}

export type ReviewState = ReturnType<typeof useReviewState>;
