"use client";
// The left column of the queue: deltas newest first, each a link that opens it on the right, with
// checkboxes for deciding many at once (pending ones only: the others are decided already).
import { Inbox } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { cn } from "@/components/ui/cn";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { RelativeTime } from "@/components/ui/relative-time";
import { formatConfidence, formatNumber, plural } from "@/components/ui/format";
import type { DeltaListItem } from "@/server/deltas/schemas";
import { BulkBar } from "./bulk-bar";
import { FlagBadges, OriginBadge, StateBadge } from "./delta-badges";
import { deltaTitle, deltasIn, describeTypes } from "@/components/shared/delta-labels";
import { reviewHref, type ReviewFilters } from "@/components/shared/review-url";

export function deltaElementId(deltaId: string): string {
  return `delta-${deltaId}`;
}

export function DeltaList({
  items,
  total,
  filters,
  playbookId,
  showPlaybook,
  selectedId,
  onSelect,
  checked,
  onCheckedChange,
  hasNextPage,
  fetchingNextPage,
  onLoadMore,
  dimmed,
}: {
  items: DeltaListItem[];
  total: number;
  filters: ReviewFilters;
  /** The queue's playbook, or undefined for the queue across playbooks. */
  playbookId: string | undefined;
  showPlaybook: boolean;
  selectedId: string | null;
  onSelect: (deltaId: string) => void;
  checked: ReadonlySet<string>;
  onCheckedChange: (next: ReadonlySet<string>) => void;
  hasNextPage: boolean;
  fetchingNextPage: boolean;
  onLoadMore: () => void;
  dimmed: boolean;
}) {
  const checkable = items.filter((item) => item.status === "pending");
  const allChecked = checkable.length > 0 && checkable.every((item) => checked.has(item.id));
  const someChecked = checkable.some((item) => checked.has(item.id));
  const unfilteredPending = filters.status === "pending" && filters.origin === null;

  function toggle(id: string) {
    const next = new Set(checked);
    if (!next.delete(id)) next.add(id);
    onCheckedChange(next);
  }

  return (
    <section
      aria-label="Deltas"
      className={cn("overflow-hidden rounded-card border border-line bg-surface shadow-card transition-opacity", dimmed && "opacity-60")}
    >
      <div className="flex min-h-12 items-center gap-3 border-b border-line bg-subtle/50 px-4 py-2">
        {checkable.length > 0 ? (
          <Checkbox
            aria-label={allChecked ? "Clear the selection" : "Select every pending delta shown"}
            checked={allChecked}
            indeterminate={someChecked && !allChecked}
            onChange={() => onCheckedChange(allChecked ? new Set() : new Set(checkable.map((item) => item.id)))}
          />
        ) : null}
        {checked.size > 0 ? (
          <BulkBar checked={checked} onDone={(failed) => onCheckedChange(new Set(failed))} />
        ) : (
          <p className="text-xs font-medium text-ink-muted" aria-live="polite">
            {formatNumber(total)} {deltasIn(filters, total)}
          </p>
        )}
      </div>
      {items.length === 0 ? (
        <div className="flex flex-col items-center px-6 py-12 text-center">
          <div className="mb-3 flex size-10 items-center justify-center rounded-xl bg-accent-soft text-accent" aria-hidden>
            <Inbox className="size-5" />
          </div>
          <p className="text-sm font-medium text-ink">{unfilteredPending ? "Nothing to review" : "No deltas here"}</p>
          <p className="mt-1 max-w-64 text-xs text-ink-muted">
            {unfilteredPending
              ? "Changes the curator, pruning or other people propose will wait here for your decision."
              : `No ${deltasIn(filters, 0)} yet.`}
          </p>
        </div>
      ) : (
        <ul className="divide-y divide-line">
          {items.map((item) => (
            <li key={item.id}>
              <DeltaListRow
                delta={item}
                href={reviewHref(playbookId ?? null, { deltaId: item.id, ...filters })}
                showPlaybook={showPlaybook}
                selected={item.id === selectedId}
                checked={checked.has(item.id)}
                onToggle={toggle}
                onSelect={onSelect}
              />
            </li>
          ))}
        </ul>
      )}
      {hasNextPage ? (
        <div className="border-t border-line p-2">
          <Button variant="ghost" size="sm" className="w-full" disabled={fetchingNextPage} onClick={onLoadMore}>
            {fetchingNextPage ? "Loading…" : "Load more"}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

function DeltaListRow({
  delta,
  href,
  showPlaybook,
  selected,
  checked,
  onToggle,
  onSelect,
}: {
  delta: DeltaListItem;
  href: string;
  showPlaybook: boolean;
  selected: boolean;
  checked: boolean;
  onToggle: (id: string) => void;
  onSelect: (id: string) => void;
}) {
  // Pruning is named as such whoever asked for it; other deltas by their rationale when they give one.
  const title = delta.origin === "pruning" ? deltaTitle(delta) : delta.rationale.trim() || deltaTitle(delta);
  return (
    <div
      id={deltaElementId(delta.id)}
      className={cn(
        "group relative flex scroll-my-14 gap-3 border-l-2 px-4 py-3 transition-colors",
        selected ? "border-accent bg-accent-soft/50" : "border-transparent hover:bg-subtle/70",
      )}
    >
      <div className="relative z-10 w-4 shrink-0 pt-0.5">
        {delta.status === "pending" ? (
          <Checkbox aria-label={`Select delta: ${title.slice(0, 80)}`} checked={checked} onChange={() => onToggle(delta.id)} />
        ) : null}
      </div>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-1.5">
          <OriginBadge origin={delta.origin} />
          <StateBadge delta={delta} />
          <FlagBadges delta={delta} />
          <RelativeTime date={delta.createdAt} className="ml-auto text-xs text-ink-faint" />
        </div>
        <a
          href={href}
          aria-current={selected ? "true" : undefined}
          onClick={(event) => {
            if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
            event.preventDefault();
            onSelect(delta.id);
          }}
          className={cn(
            "mt-1.5 line-clamp-2 text-sm leading-snug text-ink outline-none",
            // The link covers the row, so a click anywhere opens the delta; the checkbox sits above it.
            "after:absolute after:inset-0 focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus",
          )}
        >
          {title}
        </a>
        <p className="mt-1 flex flex-wrap items-center gap-x-1.5 text-xs text-ink-muted">
          {showPlaybook ? <span className="font-medium text-ink">{delta.playbookName}</span> : null}
          {showPlaybook ? <span aria-hidden>·</span> : null}
          <span>{delta.author}</span>
          <span aria-hidden>·</span>
          {delta.confidence === null ? null : (
            <>
              <span title="Confidence the proposer gave">conf. {formatConfidence(delta.confidence)}</span>
              <span aria-hidden>·</span>
            </>
          )}
          <span title={describeTypes(delta.types)}>{plural(delta.counts.total, "op")}</span>
        </p>
        <p className="mt-0.5 truncate text-xs text-ink-faint">{describeTypes(delta.types)}</p>
      </div>
    </div>
  );
}

export function DeltaListSkeleton() {
  return (
    <LoadingStatus label="Loading deltas…" className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      <div className="h-12 border-b border-line bg-subtle/50" />
      {Array.from({ length: 6 }, (_, i) => (
        <div key={i} className="flex gap-3 border-b border-line px-4 py-3 last:border-0">
          <Skeleton className="size-4" />
          <div className="flex-1 space-y-2">
            <Skeleton className="h-4 w-40" />
            <Skeleton className="h-4 w-full" />
            <Skeleton className="h-3 w-52" />
          </div>
        </div>
      ))}
    </LoadingStatus>
  );
}
