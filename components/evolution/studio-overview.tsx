"use client";
// The studio overview on the playbooks index: for each playbook, its success rate over the range
// as a sparkline, the change against the range before, traces and pending deltas. Sortable; the
// range and order live in the URL.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ArrowDown, ArrowUp, ArrowUpDown } from "lucide-react";
import Link from "next/link";
import { useMemo } from "react";
import { useTRPC } from "@/components/trpc/client";
import { cn } from "@/components/ui/cn";
import { formatNumber, formatRate, formatRateChange } from "@/components/ui/format";
import { LoadFailed } from "@/components/ui/load-failed";
import { Skeleton } from "@/components/ui/skeleton";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import type { OverviewRow } from "@/server/metrics/schemas";
import { ChartCard } from "./chart-card";
import { formatInterval } from "./format";
import {
  firstDirection,
  OVERVIEW_PRESETS,
  overviewRange,
  parseOverviewFilters,
  writeOverviewFilters,
  type OverviewFilters,
} from "./overview-url";
import { CHART_COLORS } from "@/components/shared/chart-palette";
import { overviewTable, sortOverview, sparkline, type OverviewSort } from "./prepare/overview";
import { PRESET_LABELS } from "./range-controls";
import { Segmented } from "./segmented";
import { rangeLabel } from "./time-labels";
import { useClock } from "./use-clock";
import { useTimeZone } from "./use-time-zone";

export function StudioOverview({ renderedAt }: { renderedAt: number }) {
  const trpc = useTRPC();
  const { filters, update } = useUrlFilters(parseOverviewFilters, writeOverviewFilters);
  const timeZone = useTimeZone();
  const preset = filters.preset;
  const now = useClock(renderedAt);
  const range = useMemo(() => overviewRange(preset, now), [preset, now]);
  const query = useQuery({ ...trpc.metrics.overview.queryOptions(range.input), placeholderData: keepPreviousData });
  const rows = useMemo(
    () => (query.data ? sortOverview(query.data.playbooks, filters.sort, filters.direction) : []),
    [query.data, filters.sort, filters.direction],
  );
  const table = useMemo(
    () => overviewTable(rows, `Studio overview · ${query.data ? rangeLabel(query.data.from, query.data.to, "UTC") : ""}`),
    [rows, query.data],
  );

  if (query.data && query.data.playbooks.length === 0) return null;
  return (
    <ChartCard
      className="mt-8"
      title="Studio overview"
      description={
        query.data ? (
          <>
            Success rate per playbook over {rangeLabel(query.data.from, query.data.to, timeZone)} (
            {range.bucket === "hour" ? "UTC hours" : "UTC days"}, shown in {timeZone}), and its change against the range of the same length
            before.
          </>
        ) : (
          "Success rate per playbook over the range, and its change against the range before."
        )
      }
      tables={[table]}
      time={{ bucket: range.bucket, timeZone }}
      controls={
        <Segmented<OverviewFilters["preset"]>
          label="Overview range"
          value={preset}
          onChange={(value) => update({ preset: value })}
          options={OVERVIEW_PRESETS.map((value) => ({ value, label: PRESET_LABELS[value] }))}
        />
      }
    >
      {query.isError && !query.data ? (
        <LoadFailed what="studio overview" error={query.error} onRetry={() => void query.refetch()} />
      ) : !query.data ? (
        <div role="status" className="flex flex-col gap-2 px-2">
          <span className="sr-only">Loading the studio overview…</span>
          {[0, 1, 2].map((row) => (
            <Skeleton key={row} className="h-8 w-full" />
          ))}
        </div>
      ) : (
        <div className={cn("overflow-x-auto transition-opacity", query.isPlaceholderData && "opacity-60")}>
          <OverviewTable rows={rows} filters={filters} update={update} />
        </div>
      )}
    </ChartCard>
  );
}

const COLUMNS: { sort: OverviewSort; label: string; className?: string }[] = [
  { sort: "name", label: "Playbook" },
  { sort: "successRate", label: "Success rate", className: "text-right" },
  { sort: "change", label: "Change", className: "text-right" },
  { sort: "traces", label: "Traces", className: "text-right" },
  { sort: "pendingDeltas", label: "Pending deltas", className: "text-right" },
];

function OverviewTable({
  rows,
  filters,
  update,
}: {
  rows: OverviewRow[];
  filters: OverviewFilters;
  update: (patch: Partial<OverviewFilters>, mode?: "push" | "replace") => void;
}) {
  return (
    <table className="w-full min-w-[36rem] text-[13px]" aria-label="Studio overview">
      <thead>
        <tr className="border-b border-line">
          {COLUMNS.map((column) => {
            const active = filters.sort === column.sort;
            const Icon = !active ? ArrowUpDown : filters.direction === "asc" ? ArrowUp : ArrowDown;
            return (
              <th
                key={column.sort}
                scope="col"
                aria-sort={active ? (filters.direction === "asc" ? "ascending" : "descending") : "none"}
                className={cn("px-3 py-2 text-xs font-medium text-ink-faint first:pl-2", column.className)}
              >
                <button
                  type="button"
                  className={cn("inline-flex items-center gap-1 rounded-sm hover:text-ink", active && "text-ink")}
                  onClick={() =>
                    update(
                      {
                        sort: column.sort,
                        direction: active ? (filters.direction === "asc" ? "desc" : "asc") : firstDirection(column.sort),
                      },
                      "replace",
                    )
                  }
                >
                  {column.label}
                  <Icon aria-hidden className="size-3" />
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody className="divide-y divide-line">
        {rows.map((row) => (
          <tr key={row.playbookId} className="hover:bg-subtle/50">
            <th scope="row" className="max-w-64 truncate py-2 pl-2 pr-3 text-left font-medium">
              <Link href={`/playbooks/${row.playbookId}/evolution`} className="text-ink hover:text-accent">
                {row.name}
              </Link>
            </th>
            <td className="px-3 py-2">
              <div className="flex items-center justify-end gap-3">
                <Sparkline row={row} />
                <span className="w-14 text-right tabular-nums text-ink" title={`95 % interval ${formatInterval(row.ci95)}`}>
                  {formatRate(row.successRate)}
                </span>
              </div>
            </td>
            <td className="px-3 py-2 text-right tabular-nums">
              <Change change={row.change} previous={row.previousSuccessRate} />
            </td>
            <td className="px-3 py-2 text-right tabular-nums text-ink-muted">{formatNumber(row.traces)}</td>
            <td className="px-3 py-2 text-right tabular-nums">
              {row.pendingDeltas > 0 ? (
                <Link href={`/playbooks/${row.playbookId}/review`} className="text-accent-ink hover:underline">
                  {formatNumber(row.pendingDeltas)}
                </Link>
              ) : (
                <span className="text-ink-faint">0</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const SPARK_WIDTH = 112;
const SPARK_HEIGHT = 26;

function Sparkline({ row }: { row: OverviewRow }) {
  const line = sparkline(row.series, SPARK_WIDTH, SPARK_HEIGHT);
  const rated = row.series.filter((point) => point.successRate !== null).length;
  const label =
    rated === 0
      ? "No rated traces in the range"
      : `Success rate over ${row.series.length} buckets, ${rated} with a rate; last ${formatRate(row.series.findLast((point) => point.successRate !== null)?.successRate)}`;
  return (
    <svg width={SPARK_WIDTH} height={SPARK_HEIGHT} role="img" aria-label={label} className="shrink-0 overflow-visible">
      <line x1={0} x2={SPARK_WIDTH} y1={SPARK_HEIGHT / 2} y2={SPARK_HEIGHT / 2} stroke={CHART_COLORS.grid} strokeDasharray="2 3" />
      {line.path ? <path d={line.path} fill="none" stroke={CHART_COLORS.rate} strokeWidth={1.5} strokeLinejoin="round" /> : null}
      {line.dots.map((dot) => (
        <circle key={`${dot.x},${dot.y}`} cx={dot.x} cy={dot.y} r={1.5} fill={CHART_COLORS.rate} />
      ))}
      {line.last ? <circle cx={line.last.x} cy={line.last.y} r={2.2} fill={CHART_COLORS.rate} /> : null}
    </svg>
  );
}

function Change({ change, previous }: { change: number | null; previous: number | null }) {
  if (change === null)
    return (
      <span className="text-ink-faint" title={previous === null ? "No rate in the range before" : "No rate in this range"}>
        —
      </span>
    );
  const tone = Math.abs(change) < 0.0005 ? "text-ink-muted" : change > 0 ? "text-emerald-700" : "text-rose-700";
  return (
    <span className={tone} title={`Previous range: ${formatRate(previous)}`}>
      {formatRateChange(change)}
    </span>
  );
}
