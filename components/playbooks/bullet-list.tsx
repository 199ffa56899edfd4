"use client";
// The bullet list: pages of 200 from playbook.bullets, drawn through a window virtualizer so a
// playbook of 10,000 bullets keeps ~30 rows in the DOM. Rows measure themselves (content varies).
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { RotateCw } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useDocumentOffset } from "@/components/ui/use-document-offset";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { NoMatches } from "@/components/ui/filter-bar";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { useTRPC } from "@/components/trpc/client";
import type { PlaybookDetail, SectionSummary } from "@/server/playbooks/schemas";
import { BulletRowView, SectionHeaderRow } from "./bullet-row";
import { errorMessage } from "@/components/ui/errors";
import { plural } from "@/components/ui/format";
import { BULLET_PAGES } from "./bullet-pages";
import { bulletQueryInput, hasActiveFilters, PAGE_SIZE } from "./filters";
import { buildRows } from "./rows";
import type { BulletFiltersApi } from "./use-bullet-filters";

/** Sticky top bar + sticky toolbar: rows scrolled to by keyboard must land below both. */
const STICKY_OFFSET = 160;

export function useBulletPages(playbookId: string, api: BulletFiltersApi) {
  const trpc = useTRPC();
  const input = bulletQueryInput(playbookId, api.filters);
  return useInfiniteQuery({
    ...trpc.playbook.bullets.infiniteQueryOptions(input, BULLET_PAGES),
    // While a new filter loads, keep showing the old rows (dimmed) instead of a blank list.
    placeholderData: keepPreviousData,
  });
}

export function BulletList({
  playbook,
  api,
  query,
  sectionActions,
}: {
  playbook: PlaybookDetail;
  api: BulletFiltersApi;
  query: ReturnType<typeof useBulletPages>;
  /** The buttons at the end of each section's header row. */
  sectionActions?: (section: SectionSummary) => ReactNode;
}) {
  const { filters } = api;
  const filtered = hasActiveFilters(filters);
  const pages = query.data?.pages;
  const bullets = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const hasNextPage = query.hasNextPage && !query.isPlaceholderData;
  const rows = useMemo(
    () =>
      buildRows({
        bullets,
        sections: playbook.sections,
        grouped: filters.sort === "position",
        includeEmptySections: !filtered,
        complete: !hasNextPage,
      }),
    [bullets, playbook.sections, filters.sort, filtered, hasNextPage],
  );

  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const toggleExpanded = useCallback((id: string) => {
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  }, []);

  const listRef = useRef<HTMLDivElement>(null);
  const scrollMargin = useDocumentOffset(listRef, query.isPending);

  const virtualizer = useWindowVirtualizer({
    count: rows.length + (hasNextPage ? 1 : 0),
    estimateSize: (index) => (rows[index]?.kind === "section" ? 50 : 86),
    getItemKey: (index) => rows[index]?.key ?? "loader",
    overscan: 8,
    scrollMargin,
    // Lets the server render the first rows too, so the page is readable before hydration.
    initialRect: { width: 1200, height: 900 },
  });
  const items = virtualizer.getVirtualItems();

  // Fetch the next page well before the reader reaches the end.
  const lastIndex = items.at(-1)?.index ?? -1;
  const { fetchNextPage, isFetchingNextPage } = query;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= rows.length - 40) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, lastIndex, rows.length, fetchNextPage]);

  // A new filter starts at the top of the list, not somewhere in the middle of the new results.
  const filterKey = JSON.stringify(filters);
  const previousKey = useRef(filterKey);
  useEffect(() => {
    if (previousKey.current === filterKey) return;
    previousKey.current = filterKey;
    const top = Math.max(0, scrollMargin - STICKY_OFFSET);
    if (window.scrollY > top) window.scrollTo({ top });
  }, [filterKey, scrollMargin]);

  const focusRow = useCallback(
    (from: number, direction: 1 | -1) => {
      let index = from + direction;
      while (rows[index]?.kind === "section") index += direction;
      if (!rows[index]) return;
      const find = () => document.querySelector<HTMLElement>(`[data-index="${index}"] [data-row-link]`);
      const el = find();
      if (el) return el.focus();
      virtualizer.scrollToIndex(index, { align: "center" });
      requestAnimationFrame(() => find()?.focus());
    },
    [rows, virtualizer],
  );

  if (query.isPending) return <ListSkeleton />;
  if (query.isError && !query.data) {
    return (
      <div role="alert" className="rounded-card border border-rose-200 bg-danger-soft p-5 text-sm text-rose-900">
        <p className="font-medium">The bullets could not be loaded.</p>
        <p className="mt-1">{errorMessage(query.error)}</p>
        <Button className="mt-3" size="sm" onClick={() => void query.refetch()}>
          <RotateCw aria-hidden /> Try again
        </Button>
      </div>
    );
  }
  if (bullets.length === 0) {
    return filtered ? (
      <NoMatches title="No bullets match" onReset={api.reset}>
        Nothing in this playbook matches the search and filters above. Loosen them, or reset to see every active bullet.
      </NoMatches>
    ) : (
      <EmptyState title="This playbook has no bullets yet">
        Import a playbook file into it, or let the curator add bullets as the agent learns.
      </EmptyState>
    );
  }

  return (
    <div
      className={cn(
        "overflow-hidden rounded-card border border-line bg-surface shadow-card transition-opacity",
        query.isPlaceholderData && "opacity-60",
      )}
      aria-busy={query.isFetching}
    >
      <div
        ref={listRef}
        role="list"
        aria-label="Bullets"
        className="relative"
        style={{
          height: virtualizer.getTotalSize(),
          ["--id-column" as string]: idColumnWidth(playbook),
          // Counter badges need room; a playbook without any counters only says so in two words.
          ["--meta-column" as string]: playbook.summary.signals.untracked === playbook.summary.active ? "8rem" : "15.5rem",
        }}
      >
        {items.map((item) => {
          const row = rows[item.index];
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              role="listitem"
              className="absolute left-0 top-0 w-full"
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              {row === undefined ? (
                <LoadingMoreRow />
              ) : row.kind === "section" ? (
                <SectionHeaderRow
                  section={row.section}
                  filtered={filtered}
                  onSelect={() => api.update({ sectionId: row.section.id })}
                  actions={sectionActions?.(row.section)}
                />
              ) : (
                <BulletRowView
                  bullet={row.bullet}
                  index={item.index}
                  sectionName={row.sectionName}
                  href={api.bulletHref(row.bullet.externalId)}
                  expanded={expanded.has(row.bullet.id)}
                  onToggleExpanded={toggleExpanded}
                  onOpen={api.openBullet}
                  onArrowKey={focusRow}
                  search={api.filters.search}
                />
              )}
            </div>
          );
        })}
      </div>
      {!hasNextPage && bullets.length > PAGE_SIZE / 4 ? (
        <p className="border-t border-line px-5 py-3 text-center text-xs text-ink-faint">
          End of the list · {plural(bullets.length, "bullet")}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Ids are "<section slug>-<5 digits>": size the id column to the longest one the playbook can hold,
 * so short ids (shr-00021) leave room for content and long ones (kayba's) wrap instead of overlapping.
 */
function idColumnWidth(playbook: PlaybookDetail): string {
  const longest = Math.max(0, ...playbook.sections.map((s) => s.slug.length));
  return `${Math.min(20, Math.max(9, longest + 6 + 2))}ch`;
}

function LoadingMoreRow() {
  return (
    <div className="flex items-center gap-4 border-b border-line px-5 py-4">
      <span className="sr-only">Loading more bullets…</span>
      <Skeleton className="h-3 w-20" />
      <Skeleton className="h-3 flex-1" />
    </div>
  );
}

export function ListSkeleton() {
  return (
    <LoadingStatus label="Loading bullets…" className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      {Array.from({ length: 8 }, (_, i) => (
        <div key={i} className="flex flex-col gap-2 border-b border-line px-5 py-4 sm:flex-row sm:gap-4">
          <Skeleton className="h-3.5 w-24" />
          <div className="flex-1 space-y-2">
            <Skeleton className="h-3.5 w-full" />
            <Skeleton className="h-3.5 w-2/3" />
          </div>
          <Skeleton className="h-5 w-40" />
        </div>
      ))}
    </LoadingStatus>
  );
}
