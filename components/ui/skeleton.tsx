import { cn } from "./cn";

/** A placeholder block with the size of what will load, so nothing shifts when it arrives. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden className={cn("animate-pulse rounded-md bg-line/70", className)} />;
}
