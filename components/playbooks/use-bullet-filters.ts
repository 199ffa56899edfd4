"use client";
// The bullet list's filters and open bullet, kept in the URL like every list's filters (see
// useUrlFilters); reset keeps the open bullet, and the sheet's history entry is popped on close.
import { useSearchParams } from "next/navigation";
import { useCallback, useRef } from "react";
import { commitSearchParams, useUrlFilters, useUrlState } from "@/components/ui/use-url-filters";
import { parseFilters, PARAM, writeFilters } from "./filters";

export function useBulletFilters() {
  const searchParams = useSearchParams();
  const { filters, update } = useUrlFilters(parseFilters, writeFilters);
  // The sheet opens and closes at once, and the address bar follows (useUrlState says why).
  const [bulletId, setBulletId] = useUrlState(searchParams.get(PARAM.bullet));
  // Whether the open sheet was opened by a click here (a history entry we may pop on close).
  const pushedBullet = useRef(false);

  const reset = useCallback(() => {
    const current = new URLSearchParams(window.location.search);
    const next = new URLSearchParams();
    const bullet = current.get(PARAM.bullet);
    if (bullet) next.set(PARAM.bullet, bullet);
    commitSearchParams(next, "push");
  }, []);

  const openBullet = useCallback(
    (externalId: string) => {
      const next = new URLSearchParams(window.location.search);
      next.set(PARAM.bullet, externalId);
      pushedBullet.current = true;
      setBulletId(externalId);
      commitSearchParams(next, "push");
    },
    [setBulletId],
  );

  const closeBullet = useCallback(() => {
    setBulletId(null);
    if (pushedBullet.current) {
      // Opened from the list: going back both closes the sheet and keeps history tidy.
      pushedBullet.current = false;
      window.history.back();
      return;
    }
    // Opened from a shared link: drop the parameter in place.
    const next = new URLSearchParams(window.location.search);
    next.delete(PARAM.bullet);
    commitSearchParams(next, "replace");
  }, [setBulletId]);

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
