"use client";
// Charts below the fold are drawn when the reader scrolls near them, as dashboards such as Grafana
// lazy-load their panels: a recharts chart costs 100–300 ms of main thread to mount, and a page of
// eight of them kept the first screen waiting for the ones nobody had scrolled to yet.
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Skeleton } from "./skeleton";

/** How far outside the viewport a box starts drawing: about half a screen ahead of the scroll. */
const AHEAD = "50% 0px";

/**
 * Renders `children` once its box comes within half a screen of the viewport (and keeps them from
 * then on); until then, a placeholder of the same height, so nothing below moves when it draws.
 */
export function WhenVisible({ height, children }: { height: number; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    const element = box.current;
    if (visible || !element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        setVisible(true);
      },
      { rootMargin: AHEAD },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [visible]);
  if (visible) return children;
  return (
    <div ref={box} style={{ height }} data-chart-placeholder="">
      <Skeleton className="h-full w-full rounded-lg" />
    </div>
  );
}
