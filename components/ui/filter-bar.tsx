// The filters above a list: a bar that stays under the top bar while the list scrolls, the count
// of what matches with a Reset when any filter is set, and what an empty result says.
import { FilterX, SearchX } from "lucide-react";
import type { ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";
import { EmptyState } from "./empty-state";

/** Sticky from sm up; its rows of filters are the children. */
export function FilterBar({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div
      className={cn(
        "relative z-20 -mx-4 border-b border-line bg-canvas/95 px-4 py-3 sm:sticky sm:top-14 sm:-mx-6 sm:px-6 lg:mx-0 lg:px-0",
        className,
      )}
    >
      {children}
    </div>
  );
}

/** "12 runs" (or "Loading…"), a dot while a new answer loads, and Reset when a filter is set. */
export function FilterSummary({ text, loading, onReset }: { text: string; loading: boolean; onReset?: () => void }) {
  return (
    <div className="ml-auto flex items-center gap-2 text-xs text-ink-muted" aria-live="polite">
      {loading ? <span className="size-1.5 animate-pulse rounded-full bg-accent" aria-hidden /> : null}
      <span className="tabular-nums">{text}</span>
      {onReset ? (
        <Button size="sm" variant="ghost" className="h-7" onClick={onReset}>
          <FilterX aria-hidden /> Reset
        </Button>
      ) : null}
    </div>
  );
}

/** The filters leave nothing: say so, and offer to reset them. */
export function NoMatches({ title, onReset, children }: { title: string; onReset: () => void; children: ReactNode }) {
  return (
    <EmptyState
      icon={<SearchX />}
      title={title}
      actions={
        <Button variant="primary" onClick={onReset}>
          <FilterX aria-hidden /> Reset filters
        </Button>
      }
    >
      {children}
    </EmptyState>
  );
}
