import type { ReactNode } from "react";
import { cn } from "./cn";

/** A placeholder block with the size of what will load, so nothing shifts when it arrives. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden className={cn("animate-pulse rounded-md bg-line/70", className)} />;
}

/** What stands in for a loading part: its placeholders, and what screen readers announce instead ("Loading the run…"). */
export function LoadingStatus({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    <div role="status" className={className}>
      <span className="sr-only">{label}</span>
      {children}
    </div>
  );
}

/** `count` placeholder blocks of the same size (a grid of cards, a row of chips). */
export function Skeletons({ count, className }: { count: number; className?: string }) {
  return Array.from({ length: count }, (_, i) => <Skeleton key={i} className={className} />);
}
