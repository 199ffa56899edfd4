"use client";
// List filters kept in the URL (shareable, the back button works). Changes go through the native
// History API, which Next's router follows without asking the server to render the page again.
import { useSearchParams } from "next/navigation";
import { useCallback, useMemo, useState } from "react";

/** Puts params in the address bar: "push" adds a history entry (Back undoes it), "replace" does not. */
export function commitSearchParams(params: URLSearchParams, mode: "push" | "replace") {
  const query = params.toString();
  const url = `${window.location.pathname}${query ? `?${query}` : ""}`;
  if (mode === "push") window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

/**
 * A value the URL holds (the open bullet, the selected delta) that changes on screen at once while
 * the address bar follows: Next's router reads the address back in a transition, which a refetch
 * finishing first can overtake, and until then the page would still show the old value (or, overtaken,
 * never the new one). Whenever the address changes (the new value arriving, Back, a link), the URL decides.
 */
export function useUrlState<T>(fromUrl: T): [T, (value: T) => void] {
  const address = useSearchParams().toString();
  const [value, setValue] = useState(fromUrl);
  const [seenAddress, setSeenAddress] = useState(address);
  if (seenAddress !== address) {
    setSeenAddress(address);
    setValue(fromUrl);
  }
  return [value, setValue];
}

/** `parse` and `write` must be module-level functions (stable), as in trace-url.ts, runs-url.ts and filters.ts. */
export function useUrlFilters<F>(parse: (params: URLSearchParams) => F, write: (params: URLSearchParams, filters: F) => URLSearchParams) {
  const searchParams = useSearchParams();
  const filters = useMemo(() => parse(new URLSearchParams(searchParams.toString())), [searchParams, parse]);

  const update = useCallback(
    (patch: Partial<F>, mode: "push" | "replace" = "push") => {
      const current = new URLSearchParams(window.location.search);
      commitSearchParams(write(current, { ...parse(current), ...patch }), mode);
    },
    [parse, write],
  );

  const reset = useCallback(() => commitSearchParams(new URLSearchParams(), "push"), []);

  return { filters, update, reset };
}
