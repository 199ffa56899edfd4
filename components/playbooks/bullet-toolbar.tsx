"use client";
// The sticky filter bar above the bullet list. Every control writes to the URL (see use-bullet-filters).
import { ArrowDownWideNarrow, ArrowUpNarrowWide, Plus } from "lucide-react";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { DebouncedInput } from "@/components/ui/debounced-input";
import { FilterBar, FilterSummary } from "@/components/ui/filter-bar";
import { cn } from "@/components/ui/cn";
import { FilterSelect, Select } from "@/components/ui/select";
import { formatNumber, plural } from "@/components/ui/format";
import { BULLET_SIGNALS, BULLET_SORTS, type PlaybookDetail } from "@/server/playbooks/schemas";
import { defaultDirection, hasActiveFilters, SORT_LABELS, STATUS_LABELS, type BulletStatus } from "./filters";
import { SIGNAL_META } from "./labels";
import { SignalDot } from "./signal-badge";
import type { BulletFiltersApi } from "./use-bullet-filters";

export function BulletToolbar({
  playbook,
  api,
  matching,
  loading,
  onAddBullet,
}: {
  playbook: PlaybookDetail;
  api: BulletFiltersApi;
  /** Bullets matching the filters, once known. */
  matching: number | null;
  loading: boolean;
  onAddBullet: () => void;
}) {
  const { filters, update } = api;
  const { summary } = playbook;
  const statusTotal =
    filters.status === "active" ? summary.active : filters.status === "archived" ? summary.archived : summary.active + summary.archived;

  return (
    // Sticky from the small breakpoint up: on a phone four rows of controls would hide the list.
    <FilterBar className="bg-canvas">
      <div className="flex flex-wrap items-center gap-2">
        <DebouncedInput
          search
          slashFocus
          delayMs={200}
          label="Search bullets by content or id"
          clearLabel="Clear search"
          placeholder="Search content or id, e.g. shr-00021"
          value={filters.search}
          onCommit={(search) => update({ search }, filters.search ? "replace" : "push")}
          className="w-full sm:min-w-64 sm:flex-1"
        />
        <FilterSelect
          label="Section"
          prefix="Section"
          className="w-full sm:w-60 lg:hidden"
          value={filters.sectionId}
          onValueChange={(sectionId) => update({ sectionId })}
          any={{ label: "All sections", hint: summary.active, textValue: "All sections" }}
          options={playbook.sections.map((s) => ({ value: s.id, label: s.name, hint: s.bulletCount, textValue: s.name }))}
        />
        <div className="flex min-w-0 flex-1 items-center gap-1 sm:flex-none">
          <Select
            label="Sort by"
            prefix="Sort"
            className="min-w-0 flex-1 sm:w-56 sm:flex-none"
            value={filters.sort}
            onValueChange={(sort) => update({ sort, direction: defaultDirection(sort) })}
            options={BULLET_SORTS.map((sort) => ({ value: sort, label: SORT_LABELS[sort] }))}
          />
          <Button
            size="icon"
            variant="secondary"
            className="size-9"
            onClick={() => update({ direction: filters.direction === "asc" ? "desc" : "asc" })}
            aria-label={`Sort direction: ${filters.direction === "asc" ? "ascending" : "descending"}. Switch to ${
              filters.direction === "asc" ? "descending" : "ascending"
            }.`}
            title={filters.direction === "asc" ? "Ascending" : "Descending"}
          >
            {filters.direction === "asc" ? <ArrowUpNarrowWide aria-hidden /> : <ArrowDownWideNarrow aria-hidden />}
          </Button>
        </div>
        <Select<BulletStatus>
          label="Status"
          prefix="Status"
          className="w-36 sm:w-40"
          value={filters.status}
          onValueChange={(status) => update({ status })}
          options={[
            { value: "active", label: STATUS_LABELS.active, hint: summary.active },
            { value: "archived", label: STATUS_LABELS.archived, hint: summary.archived },
            { value: "all", label: STATUS_LABELS.all, hint: summary.active + summary.archived },
          ]}
        />
        {/* Its own full-width row on a phone, where it would squeeze the sort control to nothing. */}
        <RoleGate action="bullet.edit">
          <Button variant="primary" className="w-full sm:w-auto" onClick={onAddBullet}>
            <Plus aria-hidden /> Add bullet
          </Button>
        </RoleGate>
      </div>
      <div className="mt-2.5 flex flex-wrap items-center gap-x-3 gap-y-2">
        <div
          role="group"
          aria-label="Filter by signal"
          // One scrolling row on phones, wrapping on wider screens.
          className="-mx-4 flex w-[calc(100%+2rem)] items-center gap-1.5 overflow-x-auto px-4 sm:mx-0 sm:w-auto sm:flex-wrap sm:overflow-visible sm:px-0"
        >
          {BULLET_SIGNALS.map((signal) => {
            const on = filters.signals.includes(signal);
            return (
              <button
                key={signal}
                type="button"
                aria-pressed={on}
                onClick={() => update({ signals: on ? filters.signals.filter((s) => s !== signal) : [...filters.signals, signal] })}
                className={cn(
                  "inline-flex h-7 shrink-0 items-center gap-1.5 rounded-full border px-2.5 text-xs font-medium transition-colors",
                  on
                    ? "border-accent bg-accent-soft text-accent-ink"
                    : "border-line-strong bg-surface text-ink-muted hover:border-ink-faint/60 hover:text-ink",
                )}
              >
                <SignalDot signal={signal} />
                {SIGNAL_META[signal].label}
                <span className="tabular-nums text-ink-faint">{summary.signals[signal]}</span>
              </button>
            );
          })}
        </div>
        <FilterSummary
          text={
            matching === null
              ? "Loading…"
              : hasActiveFilters(filters)
                ? `${formatNumber(matching)} of ${plural(statusTotal, "bullet")}`
                : plural(matching, "bullet")
          }
          loading={loading}
          onReset={hasActiveFilters(filters) ? api.reset : undefined}
        />
      </div>
    </FilterBar>
  );
}
