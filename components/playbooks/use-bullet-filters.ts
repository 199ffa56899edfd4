"use client";
// Filter state lives in the URL (shareable, back button works). Changes go through the native
// History API, which Next's router picks up without asking the server to render the page again.
import { useSearchParams } from "next/navigation";
import { useCallback, useMemo, useRef } from "react";
import { parseFilters, PARAM, writeFilters, type BulletFilters } from "./filters";

function commit(params: URLSearchParams, mode: "push" | "replace") {
  const query = params.toString();
  const url = `${window.location.pathname}${query ? `?${query}` : ""}`;
  if (mode === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

export function useBulletFilters() {
  const searchParams = useSearchParams();
  const filters = useMemo(() => parseFilters(new URLSearchParams(searchParams.toString())), [searchParams]);
  const bulletId = searchParams.get(PARAM.bullet);
  // Whether the open sheet was opened by a click here (a history entry we may pop on close).
  const pushedBullet = useRef(false);

  const update = useCallback((patch: Partial<BulletFilters>, mode: "push" | "replace" = "push") => {
    const current = new URLSearchParams(window.location.search);
    commit(writeFilters(current, { ...parseFilters(current), ...patch }), mode);
  }, []);

  const reset = useCallback(() => {
    const current = new URLSearchParams(window.location.search);
    const next = new URLSearchParams();
    const bullet = current.get(PARAM.bullet);
    if (bullet) next.set(PARAM.bullet, bullet);
    commit(next, "push");
  }, []);

  const openBullet = useCallback((externalId: string) => {
    const next = new URLSearchParams(window.location.search);
    next.set(PARAM.bullet, externalId);
    pushedBullet.current = true;
    commit(next, "push");
  }, []);

  const closeBullet = useCallback(() => {
    if (pushedBullet.current) {
      // Opened from the list: going back both closes the sheet and keeps history tidy.
      pushedBullet.current = false;
      window.history.back();
      return;
    }
    // Opened from a shared link: drop the parameter in place.
    const next = new URLSearchParams(window.location.search);
    next.delete(PARAM.bullet);
    commit(next, "replace");
  }, []);

  /** href for a bullet, so rows are real links (open in a new tab, copy link). */
  const bulletHref = useCallback(
    (externalId: string) => {
      const next = new URLSearchParams(searchParams.toString());
      next.set(PARAM.bullet, externalId);
      return `?${next.toString()}`;
    },
    [searchParams],
  );

  return { filters, update, reset, bulletId, openBullet, closeBullet, bulletHref };
}

export type BulletFiltersApi = ReturnType<typeof useBulletFilters>;
