"use client";
// The distance of an element from the top of the document, for virtualised lists that scroll with
// the window (their scrollMargin).
import { useLayoutEffect, useState, type RefObject } from "react";

/**
 * The element's distance from the top of the document, kept current as content above it changes.
 * `remeasure`: a value whose change means the element may have moved (say, a loading state ended).
 */
export function useDocumentOffset(ref: RefObject<HTMLElement | null>, remeasure?: unknown): number {
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setOffset(Math.round(el.getBoundingClientRect().top + window.scrollY));
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    window.addEventListener("resize", measure);
    return () => {
      observer.disconnect();
      window.removeEventListener("resize", measure);
    };
  }, [ref, remeasure]);
  return offset;
}
