"use client";
// A list table for traces and runs: a header row on wide screens, rows that stack into cards on
// phones, and (for long lists) window virtualisation that asks for the next page well before the
// reader reaches the end. ↑/↓ move between row links. Rows are divs with table roles so a virtual
// row can be positioned absolutely.
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useRef, type KeyboardEvent, type ReactNode } from "react";
import { useDocumentOffset } from "@/components/ui/use-document-offset";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";

export interface TableColumn {
  key: string;
  header: ReactNode;
  /** Alignment and the like; the same class goes on the column's cells. */
  className?: string;
}

/** Classes of a row: stacked on phones, a grid from lg up with the table's column template. */
const ROW = "flex flex-col gap-1.5 px-4 py-3 sm:px-5 lg:grid lg:items-center lg:gap-4";

export interface DataTableProps<T> {
  label: string;
  columns: readonly TableColumn[];
  /** The lg:grid-cols-[…] template; every row and the header use it. */
  grid: string;
  items: readonly T[];
  getKey: (item: T) => string;
  renderCells: (item: T) => ReactNode;
  /** Estimated row height in px (wide layout), for virtualisation. */
  estimateSize?: number;
  virtual?: boolean;
  hasNextPage?: boolean;
  fetchingNextPage?: boolean;
  onLoadMore?: () => void;
  /** Placeholder data is shown while the new filter loads. */
  dimmed?: boolean;
  busy?: boolean;
  /** "End of the list · 120 traces" and the like. */
  endNote?: ReactNode;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const { label, columns, grid, virtual = true, dimmed, busy } = props;
  return (
    <div
      role="table"
      aria-label={label}
      aria-busy={busy || undefined}
      className={cn("overflow-hidden rounded-card border border-line bg-surface shadow-card transition-opacity", dimmed && "opacity-60")}
    >
      <div role="rowgroup" className="hidden border-b border-line bg-subtle/50 lg:block">
        <div role="row" className={cn("grid items-center gap-4 px-5 py-2.5", grid)}>
          {columns.map((column) => (
            <div key={column.key} role="columnheader" className={cn("truncate text-xs font-medium text-ink-faint", column.className)}>
              {column.header}
            </div>
          ))}
        </div>
      </div>
      {virtual ? <VirtualBody {...props} /> : <StaticBody {...props} />}
      <Footer {...props} />
    </div>
  );
}

function focusRowLink(index: number): boolean {
  const el = document.querySelector<HTMLElement>(`[data-row-index="${index}"] [data-row-link]`);
  el?.focus();
  return Boolean(el);
}

function StaticBody<T>({ items, getKey, renderCells, grid }: DataTableProps<T>) {
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const row = (event.target as HTMLElement).closest<HTMLElement>("[data-row-index]");
    if (!row || !(event.target as HTMLElement).hasAttribute("data-row-link")) return;
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    event.preventDefault();
    focusRowLink(Number(row.dataset.rowIndex) + (event.key === "ArrowDown" ? 1 : -1));
  }
  return (
    <div role="rowgroup" className="divide-y divide-line" onKeyDown={onKeyDown}>
      {items.map((item, index) => (
        <div
          key={getKey(item)}
          role="row"
          data-row-index={index}
          className={cn(ROW, "group relative transition-colors hover:bg-subtle/60", grid)}
        >
          {renderCells(item)}
        </div>
      ))}
    </div>
  );
}

function VirtualBody<T>({
  items,
  getKey,
  renderCells,
  grid,
  estimateSize = 64,
  hasNextPage,
  fetchingNextPage,
  onLoadMore,
}: DataTableProps<T>) {
  const listRef = useRef<HTMLDivElement>(null);
  const scrollMargin = useDocumentOffset(listRef);
  const virtualizer = useWindowVirtualizer({
    count: items.length,
    estimateSize: () => estimateSize,
    getItemKey: (index) => (items[index] ? getKey(items[index]) : index),
    overscan: 8,
    scrollMargin,
    // Lets the server render the first rows too, so the page is readable before hydration.
    initialRect: { width: 1200, height: 900 },
  });
  const virtualItems = virtualizer.getVirtualItems();

  // Ask for the next page well before the reader reaches the end.
  const lastIndex = virtualItems.at(-1)?.index ?? -1;
  useEffect(() => {
    if (hasNextPage && !fetchingNextPage && lastIndex >= items.length - 15) onLoadMore?.();
  }, [hasNextPage, fetchingNextPage, lastIndex, items.length, onLoadMore]);

  const focusRow = useCallback(
    (index: number) => {
      if (index < 0 || index >= items.length) return;
      if (focusRowLink(index)) return;
      virtualizer.scrollToIndex(index, { align: "center" });
      requestAnimationFrame(() => focusRowLink(index));
    },
    [items.length, virtualizer],
  );

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const target = event.target as HTMLElement;
    const row = target.closest<HTMLElement>("[data-row-index]");
    if (!row || !target.hasAttribute("data-row-link")) return;
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    event.preventDefault();
    focusRow(Number(row.dataset.rowIndex) + (event.key === "ArrowDown" ? 1 : -1));
  }

  return (
    <div ref={listRef} role="rowgroup" className="relative" style={{ height: virtualizer.getTotalSize() }} onKeyDown={onKeyDown}>
      {virtualItems.map((virtualItem) => {
        const item = items[virtualItem.index];
        if (item === undefined) return null;
        return (
          <div
            key={virtualItem.key}
            role="row"
            data-index={virtualItem.index}
            data-row-index={virtualItem.index}
            ref={virtualizer.measureElement}
            className={cn(ROW, "group absolute left-0 top-0 w-full border-b border-line transition-colors hover:bg-subtle/60", grid)}
            style={{ transform: `translateY(${virtualItem.start - virtualizer.options.scrollMargin}px)` }}
          >
            {renderCells(item)}
          </div>
        );
      })}
    </div>
  );
}

function Footer<T>({ hasNextPage, fetchingNextPage, onLoadMore, endNote, virtual = true }: DataTableProps<T>) {
  if (hasNextPage) {
    return (
      <div className="flex items-center justify-center gap-3 border-t border-line px-4 py-2.5">
        {fetchingNextPage ? (
          <span role="status" className="flex w-full items-center gap-3">
            <span className="sr-only">Loading more…</span>
            <Skeleton className="h-3 w-24" />
            <Skeleton className="h-3 flex-1" />
          </span>
        ) : (
          <Button variant="ghost" size="sm" className="w-full" onClick={onLoadMore}>
            Load more
          </Button>
        )}
      </div>
    );
  }
  if (!endNote) return null;
  return <p className={cn("px-5 py-3 text-center text-xs text-ink-faint", !virtual && "border-t border-line")}>{endNote}</p>;
}

/** The stretched link that makes a whole row one click target (the row's first cell holds it). */
export const ROW_LINK =
  "outline-none after:absolute after:inset-0 after:content-[''] focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus";

/** Rows of grey bars with the table's shape, while the first page loads. */
export function TableSkeleton({ label, rows = 8 }: { label: string; rows?: number }) {
  return (
    <LoadingStatus label={label} className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      <div className="hidden h-10 border-b border-line bg-subtle/50 lg:block" />
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="flex flex-col gap-2 border-b border-line px-5 py-4 last:border-0 lg:flex-row lg:items-center lg:gap-6">
          <Skeleton className="h-3.5 w-20" />
          <Skeleton className="h-3.5 flex-1" />
          <Skeleton className="h-5 w-20" />
          <Skeleton className="hidden h-3.5 w-16 lg:block" />
          <Skeleton className="hidden h-3.5 w-16 lg:block" />
        </div>
      ))}
    </LoadingStatus>
  );
}
