"use client";
// Charts below the fold are drawn when the reader scrolls near them, as dashboards such as Grafana
// lazy-load their panels: a recharts chart costs 100–300 ms of main thread to mount, and a page of
// eight of them kept the first screen waiting for the ones nobody had scrolled to yet.
import { startTransition, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { flushSync } from "react-dom";
import { Skeleton } from "./skeleton";

/** How far outside the viewport a box starts drawing: half a screen ahead of the scroll. */
const AHEAD = 0.5;

/**
 * Renders `children` once its box comes within half a screen of the viewport, and keeps them from
 * then on (and before printing); until then, a placeholder of the same height, so nothing below
 * moves when it draws.
 */
export function WhenVisible({ height, children }: { height: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);
  useLayoutEffect(() => {
    const element = box.current;
    if (visible || !element) return;
    // Already near the viewport (the first screen, or a chart drawn afresh for a new range): draw
    // before the browser paints, so no placeholder flashes where a chart belongs.
    const { top, bottom } = element.getBoundingClientRect();
    if (bottom > -AHEAD * window.innerHeight && top < (1 + AHEAD) * window.innerHeight) {
      setVisible(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        // Interruptible: a chart mounting while the reader scrolls does not hold the scroll up.
        startTransition(() => setVisible(true));
      },
      { rootMargin: `${AHEAD * 100}% 0px` },
    );
    observer.observe(element);
    const print = () => flushSync(() => setVisible(true));
    window.addEventListener("beforeprint", print);
    return () => {
      observer.disconnect();
      window.removeEventListener("beforeprint", print);
    };
  }, [visible]);
  if (visible) return children;
  return (
    <div ref={box} style={{ height }} data-chart-placeholder="">
      <Skeleton className="h-full w-full rounded-lg" />
    </div>
  );
}
