"use client";
// Pieces every time chart of the Evolution tab shares: the bucket axis and the tooltip that names the
// bucket in the reader's zone (the legend and the empty state are in components/ui/chart.tsx).
import type { ComponentType, ReactNode } from "react";
import { CartesianGrid, XAxis, type TooltipContentProps } from "recharts";
import { Legend, Swatch } from "@/components/ui/chart";
import { WhenVisible } from "@/components/ui/when-visible";
import type { MetricsResult } from "@/server/metrics/schemas";
import { CHART_COLORS } from "@/components/shared/chart-palette";
import type { Bucket } from "./range";
import { bucketSpanLabel, tickLabel } from "./time-labels";

/** How bucket starts are labelled: the bucket size and the reader's time zone (a data table needs no more). */
export interface ZonedBucket {
  bucket: Bucket;
  timeZone: string;
}

/** The time frame every chart of one Evolution tab shares; a section passes it on whole. */
export interface TimeFrame extends ZonedBucket {
  /** Charts with this id share their tooltip and brush (see syncIdFor). */
  syncId: string;
}

/** What every section of the Evolution tab is drawn from. */
export interface SectionProps {
  playbookId: string;
  result: MetricsResult;
  time: TimeFrame;
  /** " · <playbook> · <range>": ends every table title, so a downloaded CSV says what it holds. */
  titleSuffix: string;
  /** Changes with the range, bucket and filters: the charts under a card start over (zoom, brush). */
  chartKey: string;
}

/** Charts with this id share their tooltip and brush: one bucket hovered is hovered everywhere. */
export function syncIdFor(playbookId: string): string {
  return `evolution-${playbookId}`;
}

/** Props of the shared x axis: bucket starts, labelled in the reader's zone. */
export function timeAxisProps({ bucket, timeZone }: ZonedBucket) {
  return {
    dataKey: "start",
    tickFormatter: (value: unknown) => (typeof value === "string" ? tickLabel(value, bucket, timeZone) : String(value)),
    minTickGap: 28,
    tick: { fontSize: 11, fill: CHART_COLORS.axis },
    tickLine: false,
    axisLine: { stroke: CHART_COLORS.grid },
  } as const;
}

export const VALUE_AXIS = {
  tick: { fontSize: 11, fill: CHART_COLORS.axis },
  tickLine: false,
  axisLine: false,
  width: 44,
} as const;

export const CHART_MARGIN = { top: 8, right: 8, bottom: 0, left: 0 } as const;

/** The props a recharts cartesian chart (LineChart, BarChart, ComposedChart) takes here. */
interface TimeChartRootProps {
  data: unknown[];
  syncId: string;
  syncMethod: "value";
  responsive: boolean;
  style: { width: string; height: number };
  margin: typeof CHART_MARGIN;
  children: ReactNode;
}

/**
 * A time chart below the Outcomes chart: drawn once scrolled near (WhenVisible), synchronised with
 * the others by bucket, with the grid and the bucket axis; `children` adds the value axes, series
 * and tooltip, and `legend` names the colours under it.
 */
export function TimeChart({
  chart: Chart,
  rows,
  height,
  time,
  legend,
  children,
}: {
  chart: ComponentType<TimeChartRootProps>;
  rows: readonly object[];
  height: number;
  time: TimeFrame;
  legend: { label: string; color: string; dashed?: boolean }[];
  children: ReactNode;
}) {
  return (
    <div>
      <WhenVisible height={height}>
        <Chart
          data={rows as object[]}
          syncId={time.syncId}
          syncMethod="value"
          responsive
          style={{ width: "100%", height }}
          margin={CHART_MARGIN}
        >
          <CartesianGrid vertical={false} stroke={CHART_COLORS.grid} />
          <XAxis {...timeAxisProps(time)} />
          {children}
        </Chart>
      </WhenVisible>
      <Legend items={legend} />
    </div>
  );
}

export interface TooltipLine {
  label: string;
  value: string;
  color?: string;
  /** Drawn as a dashed swatch (intervals, budgets). */
  dashed?: boolean;
}

/**
 * The tooltip of a time chart: the bucket's span in the reader's zone, then one line per series
 * from `lines(row)`. Rows are the chart's own data points (recharts passes them in the payload).
 */
function BucketTooltip<Row extends { start: string }>({
  active,
  payload,
  time,
  lines,
  footer,
}: Pick<TooltipContentProps, "active" | "payload"> & {
  time: ZonedBucket;
  lines: (row: Row) => TooltipLine[];
  footer?: (row: Row) => ReactNode;
}) {
  const row = payload?.[0]?.payload as Row | undefined;
  if (!active || !row) return null;
  return (
    <div className="max-w-xs rounded-lg border border-line bg-surface px-3 py-2 text-xs shadow-pop">
      <p className="mb-1.5 font-medium text-ink">{bucketSpanLabel(row.start, time.bucket, time.timeZone)}</p>
      <ul className="flex flex-col gap-1">
        {lines(row).map((line) => (
          <li key={line.label} className="flex items-center gap-2">
            {line.color ? <Swatch color={line.color} dashed={line.dashed} /> : null}
            <span className="text-ink-muted">{line.label}</span>
            <span className="ml-auto pl-3 font-medium tabular-nums text-ink">{line.value}</span>
          </li>
        ))}
      </ul>
      {footer ? <div className="mt-1.5 border-t border-line pt-1.5 text-ink-faint">{footer(row)}</div> : null}
    </div>
  );
}

/** A recharts Tooltip's `content`: the BucketTooltip of the hovered row. */
export function bucketTooltip<Row extends { start: string }>(options: {
  time: ZonedBucket;
  lines: (row: Row) => TooltipLine[];
  footer?: (row: Row) => ReactNode;
}) {
  return function Content({ active, payload }: Pick<TooltipContentProps, "active" | "payload">) {
    return <BucketTooltip<Row> active={active} payload={payload} {...options} />;
  };
}

/** The lines of a level read from the version in force: "No version yet" before the first, else the version and then `lines`. */
export function versionLines(version: number | null, lines: () => TooltipLine[]): TooltipLine[] {
  return version === null ? [{ label: "No version yet", value: "" }] : [{ label: "Version", value: `v${version}` }, ...lines()];
}
