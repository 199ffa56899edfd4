"use client";
import { ChevronDown } from "lucide-react";
import { memo, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { BreakableName } from "@/components/ui/breakable-name";
import { Highlight, matchRanges } from "@/components/ui/highlight";
import { cn } from "@/components/ui/cn";
import type { BulletRow, SectionSummary } from "@/server/playbooks/schemas";
import { CounterBadges } from "@/components/ui/counter-badges";
import { plural } from "@/components/ui/format";
import { PinBadge } from "./pin-badge";
import { SignalBadge } from "./signal-badge";

/**
 * One bullet. The id and content form a real link (?bullet=…) stretched over the whole row, so a
 * click anywhere opens the detail, and middle-click / copy link work as on any link. The expand
 * toggle sits above the stretched link.
 */
export const BulletRowView = memo(function BulletRowView({
  bullet,
  index,
  sectionName,
  href,
  expanded,
  onToggleExpanded,
  onOpen,
  onArrowKey,
  search = "",
}: {
  bullet: BulletRow;
  /** Position in the virtual list, handed back to onArrowKey. */
  index: number;
  sectionName: string | null;
  href: string;
  expanded: boolean;
  // Callbacks take their arguments instead of closing over them, so rows can skip re-rendering
  // while the list scrolls.
  onToggleExpanded: (bulletId: string) => void;
  onOpen: (externalId: string) => void;
  onArrowKey: (index: number, direction: 1 | -1) => void;
  /** The list's search: where it matched is marked in the id and the content. */
  search?: string;
}) {
  const contentRef = useRef<HTMLSpanElement>(null);
  // Whether line-clamp cut the text is read on hover/focus, not on mount: reading layout for every
  // row that scrolls into view made fast scrolling through 10,000 bullets stutter.
  const [clamped, setClamped] = useState(false);
  const checkClamped = () => {
    const el = contentRef.current;
    if (el && !expanded) setClamped(el.scrollHeight > el.clientHeight + 1);
  };

  function handleClick(event: MouseEvent<HTMLAnchorElement>) {
    // Let the browser handle new-tab/new-window clicks; plain clicks open the sheet in place.
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
    event.preventDefault();
    onOpen(bullet.externalId);
  }

  function handleKeyDown(event: KeyboardEvent<HTMLAnchorElement>) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      onArrowKey(index, event.key === "ArrowDown" ? 1 : -1);
    }
  }

  return (
    <div
      onPointerEnter={checkClamped}
      onFocus={checkClamped}
      className={cn(
        "group relative flex flex-col gap-2 border-b border-line px-4 py-3.5 transition-colors hover:bg-subtle/70",
        "sm:flex-row sm:items-start sm:gap-4 sm:px-5",
        bullet.status === "archived" && "bg-subtle/40",
      )}
    >
      <a
        href={href}
        onClick={handleClick}
        onKeyDown={handleKeyDown}
        data-row-link
        data-bullet={bullet.externalId}
        className={cn(
          // scroll-mt: a row reached by keyboard stops below the sticky top bar and toolbar.
          "flex min-w-0 flex-1 scroll-mt-44 flex-col gap-1.5 outline-none sm:flex-row sm:gap-4",
          // Stretch the link over the row; the focus ring is drawn on the row's box.
          "after:absolute after:inset-0 after:rounded-sm focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus",
        )}
      >
        <span
          data-bullet-id
          className="shrink-0 break-normal pt-px font-mono text-xs font-medium text-ink-faint sm:w-[var(--id-column,11ch)] sm:pt-0.5"
        >
          {search && matchRanges(bullet.externalId, search.replace(/^\[|\]$/gu, "")).length > 0 ? (
            <mark className="rounded-sm bg-amber-100 text-inherit">
              [<BreakableName text={bullet.externalId} />]
            </mark>
          ) : (
            <>
              [<BreakableName text={bullet.externalId} />]
            </>
          )}
        </span>
        <span className="min-w-0 flex-1">
          <span
            ref={contentRef}
            className={cn(
              "text-sm leading-relaxed break-words text-ink",
              // line-clamp brings its own display (-webkit-box); "block" would cancel it.
              expanded ? "block whitespace-pre-wrap" : "line-clamp-3",
              bullet.status === "archived" && "text-ink-muted",
            )}
          >
            <Highlight text={bullet.content} query={search} />
          </span>
          {sectionName !== null ? (
            <span className="mt-1.5 inline-block text-xs text-ink-faint">
              <span className="sr-only">Section: </span>
              <BreakableName text={sectionName} />
            </span>
          ) : null}
        </span>
      </a>
      <div className="flex shrink-0 flex-wrap items-center gap-1.5 sm:w-[var(--meta-column,15.5rem)] sm:justify-end sm:pt-px">
        {bullet.status === "archived" ? <Badge tone="gray">Archived</Badge> : null}
        {bullet.pinned ? <PinBadge /> : null}
        <CounterBadges helpful={bullet.helpful} harmful={bullet.harmful} neutral={bullet.neutral} countersKnown={bullet.countersKnown} />
        {/* Without counters the signal can only be "No counters", which the text already says. */}
        {bullet.countersKnown ? <SignalBadge signal={bullet.signal} /> : null}
        {clamped || expanded ? (
          <button
            type="button"
            onClick={() => onToggleExpanded(bullet.id)}
            aria-expanded={expanded}
            aria-label={expanded ? `Collapse ${bullet.externalId}` : `Show all of ${bullet.externalId}`}
            className="relative z-10 inline-flex size-6 items-center justify-center rounded-md text-ink-faint hover:bg-line/60 hover:text-ink"
          >
            <ChevronDown aria-hidden className={cn("size-4 transition-transform", expanded && "rotate-180")} />
          </button>
        ) : (
          // Same width as the toggle so badges line up from row to row.
          <span aria-hidden className="hidden size-6 sm:inline-block" />
        )}
      </div>
    </div>
  );
});

export function SectionHeaderRow({
  section,
  filtered,
  onSelect,
  actions,
}: {
  section: SectionSummary;
  /** Filters are on: the count is the section's, not the number of matches shown below it. */
  filtered: boolean;
  onSelect: () => void;
  /** Add a bullet here, the section's menu. */
  actions?: ReactNode;
}) {
  const count = section.bulletCount === 0 ? "no bullets" : plural(section.bulletCount, "bullet");
  return (
    <div className="flex items-center gap-3 border-b border-line bg-canvas/80 px-4 pb-2 pt-6 sm:px-5">
      <h3 className="min-w-0 truncate text-xs font-semibold tracking-wide text-ink-muted">
        <button
          type="button"
          onClick={onSelect}
          title={`Show only ${section.name}`}
          className="truncate rounded-sm hover:text-accent hover:underline"
        >
          {section.name}
        </button>
      </h3>
      <span className="shrink-0 text-xs tabular-nums text-ink-faint">{filtered ? `${count} in section` : count}</span>
      <span aria-hidden className="h-px flex-1 bg-line" />
      {actions ? <div className="-my-1 flex shrink-0 items-center gap-0.5">{actions}</div> : null}
    </div>
  );
}
