"use client";
// The queue's filter and selected delta, read from the URL and written with the History API (as
// the bullet filters are), so j/k can move through deltas without asking the server for a page.
import { useSearchParams } from "next/navigation";
import { useCallback, useMemo } from "react";
import { parseDeltaId, parseReviewStatus, REVIEW_PARAM, type ReviewStatus } from "./review-url";

function commit(params: URLSearchParams, mode: "push" | "replace") {
  const query = params.toString();
  const url = `${window.location.pathname}${query ? `?${query}` : ""}`;
  if (mode === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

export function useReviewState() {
  const searchParams = useSearchParams();
  const status = useMemo(() => parseReviewStatus(searchParams.get(REVIEW_PARAM.status)), [searchParams]);
  const deltaId = useMemo(() => parseDeltaId(searchParams.get(REVIEW_PARAM.delta)), [searchParams]);

  const setStatus = useCallback((next: ReviewStatus) => {
    const params = new URLSearchParams(window.location.search);
    if (next === "pending") params.delete(REVIEW_PARAM.status);
    else params.set(REVIEW_PARAM.status, next);
    // Another list: the open delta may not be in it, so start from its first one.
    params.delete(REVIEW_PARAM.delta);
    commit(params, "push");
  }, []);

  /** Clicks push a history entry (Back returns to the list on a phone); j/k replace it. */
  const select = useCallback((id: string | null, mode: "push" | "replace" = "push") => {
    const params = new URLSearchParams(window.location.search);
    if (id) params.set(REVIEW_PARAM.delta, id);
    else params.delete(REVIEW_PARAM.delta);
    commit(params, mode);
  }, []);

  return { status, deltaId, setStatus, select };
}

export type ReviewState = ReturnType<typeof useReviewState>;
