"use client";
// The trace explorer (/traces): every run an agent reported, newest first, filtered by what the URL
// says, loading further pages as the reader scrolls.
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { FileCode2, Inbox, X } from "lucide-react";
import Link from "next/link";
import { useMemo } from "react";
import { Button, buttonClass } from "@/components/ui/button";
import { DebouncedInput } from "@/components/ui/debounced-input";
import { EmptyState } from "@/components/ui/empty-state";
import { FilterBar, FilterSummary, NoMatches } from "@/components/ui/filter-bar";
import { Input } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { PageHeader } from "@/components/ui/page-header";
import { Notice } from "@/components/ui/notice";
import { PlaybookFilter } from "@/components/shared/playbook-filter";
import { UrlFilterSelect } from "@/components/ui/url-filter-select";
import { errorMessage } from "@/components/ui/errors";
import { useTRPC } from "@/components/trpc/client";
import { TRACE_COUNT_CAP, TRACE_OUTCOMES } from "@/server/traces/schemas";
import { TableSkeleton } from "@/components/ui/data-table";
import { OUTCOME_META } from "@/components/shared/trace-labels";
import {
  hasTraceFilters,
  parseTraceFilters,
  TRACE_PAGES,
  traceListInput,
  writeTraceFilters,
  type TraceFilters,
} from "@/components/shared/trace-url";
import { TracesTable } from "@/components/shared/traces-table";
import { EraseTracesButton } from "./erase-dialog";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import { formatExact } from "@/components/ui/relative-time";
import { useHydrated } from "@/components/ui/use-hydrated";
import { formatNumber, plural } from "@/components/ui/format";

const OUTCOME_OPTIONS = TRACE_OUTCOMES.map((outcome) => ({ value: outcome, label: OUTCOME_META[outcome].label }));
const REFLECTED_OPTIONS = [
  { value: "yes", label: "Reflected" },
  { value: "no", label: "Not reflected yet" },
] as const;

/** "1,234 traces", "10,000+ traces" past the server's counting cap, or "50+" without a count. */
function traceCount(total: number | null, loaded: number, more: boolean): string {
  if (total === null) return `${formatNumber(loaded)}${more ? "+" : ""} ${loaded === 1 && !more ? "trace" : "traces"}`;
  if (total > TRACE_COUNT_CAP) return `${formatNumber(TRACE_COUNT_CAP)}+ traces`;
  return plural(total, "trace");
}

export function TraceExplorer() {
  const trpc = useTRPC();
  const { filters, update, reset } = useUrlFilters(parseTraceFilters, writeTraceFilters);
  const query = useInfiniteQuery({
    ...trpc.traces.list.infiniteQueryOptions(traceListInput(filters), TRACE_PAGES),
    placeholderData: keepPreviousData,
  });
  const pages = query.data?.pages;
  const items = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const filtered = hasTraceFilters(filters);
  const hasNextPage = query.hasNextPage && !query.isPlaceholderData;

  return (
    <>
      <PageHeader
        title="Traces"
        description="Every task your agents reported: what they were asked, how they reasoned, what came out and how it went. The reflector learns from each one."
        actions={
          <>
            <EraseTracesButton />
            <a href="/api/v1/openapi.json" className={buttonClass("secondary")}>
              <FileCode2 aria-hidden /> API reference
            </a>
          </>
        }
      />

      <TraceFilterBar
        filters={filters}
        update={update}
        reset={reset}
        summary={query.isPending ? "Loading…" : traceCount(pages?.[0]?.total ?? null, items.length, hasNextPage)}
        loading={query.isFetching && !query.isFetchingNextPage}
      />

      <div className="pb-16 pt-4">
        {query.isPending ? (
          <TableSkeleton label="Loading traces…" />
        ) : query.isError && !query.data ? (
          <LoadFailed what="traces" error={query.error} onRetry={() => void query.refetch()} />
        ) : items.length === 0 ? (
          filtered ? (
            <NoMatches title="No traces match" onReset={reset}>
              Nothing matches the search and filters above. Loosen them, or reset to see every trace.
            </NoMatches>
          ) : (
            <EmptyState
              icon={<Inbox />}
              title="No traces yet"
              actions={
                <Link href="/playbooks" className={buttonClass("primary")}>
                  Open a playbook
                </Link>
              }
            >
              Agents report each task they ran with <code className="font-mono text-[13px] text-ink">POST /api/v1/traces</code>. A
              playbook&apos;s Runs tab shows the request to copy, with its URL filled in.
            </EmptyState>
          )
        ) : (
          <TracesTable
            items={items}
            showPlaybook={filters.playbookId === null}
            hasNextPage={hasNextPage}
            fetchingNextPage={query.isFetchingNextPage}
            onLoadMore={() => void query.fetchNextPage()}
            dimmed={query.isPlaceholderData}
            busy={query.isFetching}
            endNote={items.length > 10 ? `End of the list · ${formatNumber(items.length)} traces` : null}
          />
        )}
        {query.isError && query.data ? (
          <Notice tone="danger" compact className="mt-3">
            {errorMessage(query.error)}
          </Notice>
        ) : null}
      </div>
    </>
  );
}

function TraceFilterBar({
  filters,
  update,
  reset,
  summary,
  loading,
}: {
  filters: TraceFilters;
  update: (patch: Partial<TraceFilters>, mode?: "push" | "replace") => void;
  reset: () => void;
  summary: string;
  loading: boolean;
}) {
  return (
    <FilterBar>
      <div className="flex flex-wrap items-center gap-2">
        <DebouncedInput
          search
          slashFocus
          label="Search traces by task or external id"
          placeholder="Search task or external id"
          value={filters.search}
          onCommit={(search) => update({ search }, filters.search ? "replace" : "push")}
          className="w-full sm:min-w-64 sm:flex-1"
        />
        <PlaybookFilter value={filters.playbookId} onChange={(playbookId) => update({ playbookId })} />
        <UrlFilterSelect filters={filters} update={update} name="outcome" label="Outcome" options={OUTCOME_OPTIONS} />
        <UrlFilterSelect
          filters={filters}
          update={update}
          name="reflected"
          label="Reflected"
          prefix="Reflector"
          className="w-[calc(50%-0.25rem)] sm:w-52"
          options={REFLECTED_OPTIONS}
        />
      </div>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <DebouncedInput
          label="Variant"
          placeholder="Variant, e.g. A"
          value={filters.variant}
          onCommit={(variant) => update({ variant }, filters.variant ? "replace" : "push")}
          className="w-full sm:w-44"
        />
        <DateField label="From" value={filters.from} max={filters.to} onChange={(from) => update({ from })} />
        <DateField label="To" value={filters.to} min={filters.from} onChange={(to) => update({ to })} />
        <span className="hidden text-xs text-ink-faint sm:inline" title="Days start and end at midnight UTC">
          UTC days
        </span>
        {filters.start || filters.end ? (
          <SpanFilter start={filters.start} end={filters.end} onClear={() => update({ start: null, end: null })} />
        ) : null}
        <FilterSummary text={summary} loading={loading} onReset={hasTraceFilters(filters) ? reset : undefined} />
      </div>
    </FilterBar>
  );
}

function DateField({
  label,
  value,
  min,
  max,
  onChange,
}: {
  label: string;
  value: string | null;
  min?: string | null;
  max?: string | null;
  onChange: (value: string | null) => void;
}) {
  return (
    <label className="flex items-center gap-2 text-[13px] text-ink-muted">
      {label}
      <Input
        type="date"
        value={value ?? ""}
        min={min ?? undefined}
        max={max ?? undefined}
        onChange={(event) => onChange(event.target.value || null)}
        className="w-40 tabular-nums"
      />
    </label>
  );
}

/** The exact span a chart's bucket links with (start/end in the URL): shown, so it can be cleared. */
function SpanFilter({ start, end, onClear }: { start: string | null; end: string | null; onClear: () => void }) {
  const hydrated = useHydrated();
  // The reader's clock once hydrated; UTC in the server's HTML.
  const label = (iso: string | null) =>
    iso === null ? "…" : hydrated ? formatExact(new Date(iso)) : `${iso.slice(0, 16).replace("T", " ")} UTC`;
  return (
    <span className="inline-flex h-8 items-center gap-1.5 rounded-lg border border-line-strong bg-surface pl-2.5 pr-1 text-[13px] text-ink">
      <span className="text-ink-faint">Ran</span>
      <span className="tabular-nums">
        {label(start)} – {label(end)}
      </span>
      <Button size="icon" variant="ghost" className="size-6" aria-label="Clear the time span" onClick={onClear}>
        <X aria-hidden />
      </Button>
    </span>
  );
}
