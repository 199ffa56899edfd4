"use client";
// The approval queue, for one playbook or across all of them: the list on the left, the chosen
// delta on the right (one at a time on a phone), j/k to move between them.
import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { ListChecks } from "lucide-react";
import { useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { Notice } from "@/components/ui/notice";
import { FilterSelect, type SelectOption } from "@/components/ui/select";
import { useShortcuts } from "@/components/ui/use-shortcuts";
import { errorMessage } from "@/components/ui/errors";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { OFFSET_PAGES } from "@/components/trpc/offset-pages";
import { DELTA_ORIGINS, type DeltaOrigin } from "@/server/deltas/schemas";
import { DeltaDetail } from "./delta-detail";
import { deltaElementId, DeltaList, DeltaListSkeleton } from "./delta-list";
import { deltasIn, ORIGIN_META, STATUS_FILTER_LABELS } from "@/components/shared/delta-labels";
import { deltaListInput, REVIEW_STATUSES, type ReviewFilters } from "@/components/shared/review-url";
import { ShortcutLegend } from "./shortcut-legend";
import { useReviewState } from "./use-review-state";

const ORIGIN_OPTIONS: SelectOption<DeltaOrigin>[] = DELTA_ORIGINS.map((origin) => ({ value: origin, label: ORIGIN_META[origin].label }));

export function useDeltaPages(playbookId: string | undefined, filters: ReviewFilters) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.delta.list.infiniteQueryOptions(deltaListInput(playbookId, filters), OFFSET_PAGES),
    placeholderData: keepPreviousData,
  });
}

/** How often an open queue asks whether anything changed (a cheap signature, not the queue itself). */
export const QUEUE_WATCH_MS = 5_000;

/**
 * Keeps the queue and the open delta current while someone else proposes, decides or edits: the
 * signature is polled, and only a change refetches the list, the delta and the playbook, so a delta
 * that became stale says so before anyone clicks Approve. Its first value comes with the page, read
 * before the queue (prefetch-queue.ts), so a change made while the page loads is not taken for the start.
 */
function useLiveQueue(playbookId: string | undefined) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const signature = useQuery({
    ...trpc.delta.watch.queryOptions(playbookId ? { playbookId } : {}),
    refetchInterval: QUEUE_WATCH_MS,
    // Polls pause while the tab is hidden: coming back asks at once instead of up to 5 s later.
    refetchOnWindowFocus: "always",
  }).data?.signature;
  const seen = useRef<string | null>(null);
  useEffect(() => {
    if (signature === undefined) return;
    if (seen.current !== null && seen.current !== signature) void invalidate();
    seen.current = signature;
  }, [signature, invalidate]);
}

export function ReviewView({ playbookId }: { playbookId?: string }) {
  const state = useReviewState();
  useLiveQueue(playbookId);
  const { filters } = state;
  const query = useDeltaPages(playbookId, filters);
  const pages = query.data?.pages;
  const items = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  // On a wide screen the first delta opens by itself; on a phone the list shows until one is picked.
  const selectedId = state.deltaId ?? items[0]?.id ?? null;
  const index = items.findIndex((item) => item.id === selectedId);

  const [checked, setChecked] = useState<ReadonlySet<string>>(() => new Set());
  const listKey = `${filters.status}:${filters.origin ?? "every origin"}`;
  const [checkedFor, setCheckedFor] = useState(listKey);
  if (checkedFor !== listKey) {
    // Another list: a selection made in the last one would act on deltas no longer shown.
    setCheckedFor(listKey);
    setChecked(new Set());
  }
  const unfilteredPending = filters.status === "pending" && filters.origin === null;

  function move(direction: 1 | -1) {
    const next = items[index + direction];
    if (next) {
      state.select(next.id, "replace");
      document.getElementById(deltaElementId(next.id))?.scrollIntoView({ block: "nearest" });
    } else if (direction === 1 && query.hasNextPage && !query.isFetchingNextPage) {
      void query.fetchNextPage();
    }
  }
  const shortcutsLive = useShortcuts({ j: () => move(1), k: () => move(-1) });

  function afterDecision() {
    // The next one down, or the one above when this was the last: the reviewer keeps going.
    const next = items[index + 1] ?? items[index - 1] ?? null;
    state.select(next?.id ?? null, "replace");
  }

  return (
    <div className="pb-16">
      <div className="mb-4 flex flex-wrap items-center gap-3">
        <div
          role="group"
          aria-label="Show deltas"
          className="-mx-4 flex w-[calc(100%+2rem)] gap-1.5 overflow-x-auto px-4 sm:mx-0 sm:w-auto sm:px-0"
        >
          {REVIEW_STATUSES.map((status) => (
            <button
              key={status}
              type="button"
              aria-pressed={filters.status === status}
              onClick={() => state.setStatus(status)}
              className={cn(
                "inline-flex h-8 shrink-0 items-center rounded-full border px-3 text-[13px] font-medium transition-colors",
                filters.status === status
                  ? "border-accent bg-accent-soft text-accent-ink"
                  : "border-line-strong bg-surface text-ink-muted hover:border-ink-faint/60 hover:text-ink",
              )}
            >
              {STATUS_FILTER_LABELS[status]}
            </button>
          ))}
        </div>
        <FilterSelect<DeltaOrigin>
          label="Origin"
          className="w-44"
          value={filters.origin}
          onValueChange={state.setOrigin}
          any={{ label: "All origins" }}
          options={ORIGIN_OPTIONS}
        />
        <div className="ml-auto">
          <ShortcutLegend active={shortcutsLive} />
        </div>
      </div>

      {query.isError && !query.data ? (
        <Notice tone="danger" title="The queue could not be loaded">
          {errorMessage(query.error)}
        </Notice>
      ) : (
        <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,23rem)_minmax(0,1fr)]">
          <div
            className={cn(
              "lg:sticky lg:top-[4.5rem] lg:max-h-[calc(100dvh-5.5rem)] lg:overflow-y-auto lg:rounded-card",
              state.deltaId !== null && "hidden lg:block",
            )}
          >
            {query.isPending ? (
              <DeltaListSkeleton />
            ) : (
              <DeltaList
                items={items}
                total={total}
                filters={filters}
                playbookId={playbookId}
                showPlaybook={playbookId === undefined}
                selectedId={selectedId}
                onSelect={(id) => state.select(id)}
                checked={checked}
                onCheckedChange={setChecked}
                hasNextPage={query.hasNextPage && !query.isPlaceholderData}
                fetchingNextPage={query.isFetchingNextPage}
                onLoadMore={() => void query.fetchNextPage()}
                dimmed={query.isPlaceholderData}
              />
            )}
          </div>
          <div className={cn("min-w-0", state.deltaId === null && "hidden lg:block")}>
            {selectedId ? (
              <DeltaDetail
                deltaId={selectedId}
                showPlaybook={playbookId === undefined}
                onDecided={afterDecision}
                onSelect={(id) => state.select(id, "replace")}
                onBack={() => state.select(null)}
              />
            ) : query.isPending ? null : (
              // Nothing is selected only when the list is empty.
              <EmptyState
                icon={<ListChecks />}
                title={unfilteredPending ? "All caught up" : "Nothing here"}
                actions={
                  filters.origin ? (
                    <Button variant="secondary" size="sm" onClick={() => state.setOrigin(null)}>
                      Show all origins
                    </Button>
                  ) : null
                }
              >
                {unfilteredPending
                  ? "No delta waits for review. New proposals from the curator, pruning and other people will show up here."
                  : `No ${deltasIn(filters, 0)} yet.`}
              </EmptyState>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
