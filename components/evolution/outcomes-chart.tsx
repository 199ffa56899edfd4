"use client";
// The Outcomes chart: success rate per bucket with its Wilson 95 % band, traces per bucket as bars
// (by outcome), a line per variant, and a flag where versions were made. Drag across the plot (or
// the brush under it) to zoom: the range goes into the URL. Click a bucket for links to its traces.
import { ExternalLink, X } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import {
  Area,
  Bar,
  Brush,
  CartesianGrid,
  ComposedChart,
  Line,
  ReferenceArea,
  Tooltip,
  usePlotArea,
  useXAxisScale,
  XAxis,
  YAxis,
} from "recharts";
import { Button } from "@/components/ui/button";
import { formatNumber, formatRate, plural } from "@/components/ui/format";
import { historyHref } from "@/components/ui/routes";
import { tracesHref } from "@/components/shared/trace-url";
import { Legend } from "@/components/ui/chart";
import { bucketTooltip, CHART_MARGIN, timeAxisProps, VALUE_AXIS, type TimeFrame, type TooltipLine, type ZonedBucket } from "./chart-parts";
import { formatInterval, percentTick } from "./format";
import { CHART_COLORS, seriesColor } from "@/components/shared/chart-palette";
import type { OutcomeRow, OutcomeSeries } from "./prepare/outcomes";
import type { VersionMarker } from "./prepare/versions";
import { bucketEnd, type Bucket } from "./range";
import { bucketSpanLabel, tickLabel } from "./time-labels";

/** The trace explorer for one bucket of a playbook, optionally one outcome and variant. */
export function bucketTracesHref(
  playbookId: string,
  bucket: Bucket,
  start: string,
  filter: { outcome?: "success" | "failure" | "unknown"; variant?: string },
): string {
  return tracesHref({
    playbookId,
    start,
    end: new Date(bucketEnd(Date.parse(start), bucket)).toISOString(),
    ...(filter.outcome ? { outcome: filter.outcome } : {}),
    ...(filter.variant ? { variant: filter.variant } : {}),
  });
}

export function markerHref(playbookId: string, marker: VersionMarker): string {
  return historyHref(playbookId, marker.compare);
}

const RATE_AXIS = "rate";
const TRACES_AXIS = "traces";

/** The traces of a bucket, stacked by outcome behind the rate (unknown a little stronger, being grey). */
const TRACE_BARS = [
  { key: "success", name: "Success", opacity: 0.28 },
  { key: "failure", name: "Failure", opacity: 0.28 },
  { key: "unknown", name: "Unknown", opacity: 0.35 },
] as const;

export function OutcomesChart({
  playbookId,
  series,
  markers,
  time,
  variantFilter,
  onZoom,
}: {
  playbookId: string;
  series: OutcomeSeries;
  markers: readonly VersionMarker[];
  time: TimeFrame;
  /** The variant the reader filtered to ("" for all): links to traces keep it. */
  variantFilter: string;
  onZoom: (from: number, to: number) => void;
}) {
  const { bucket, timeZone } = time;
  const rows = series.rows;
  const [drag, setDrag] = useState<{ from: string; to: string } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const indexOf = useMemo(() => new Map(rows.map((row, index) => [row.start, index])), [rows]);
  const markerByStart = useMemo(() => new Map(markers.map((marker) => [marker.start, marker])), [markers]);
  const selectedRow = selected === null ? undefined : rows[indexOf.get(selected) ?? -1];

  function zoomTo(startIndex: number, endIndex: number) {
    const first = rows[startIndex];
    const last = rows[endIndex];
    if (!first || !last || (startIndex === 0 && endIndex === rows.length - 1)) return;
    onZoom(Date.parse(first.start), bucketEnd(Date.parse(last.start), bucket));
  }

  function finishDrag() {
    if (!drag) return;
    const a = indexOf.get(drag.from);
    const b = indexOf.get(drag.to);
    setDrag(null);
    if (a === undefined || b === undefined) return;
    // A press and release on one bucket is a click: show its traces.
    if (a === b) setSelected(rows[a]!.start);
    else zoomTo(Math.min(a, b), Math.max(a, b));
  }

  const lines = (row: OutcomeRow): TooltipLine[] => [
    { label: "Success rate", value: formatRate(row.rate), color: CHART_COLORS.rate },
    { label: "95 % interval", value: formatInterval(row.band), color: CHART_COLORS.band, dashed: true },
    ...series.variants.map((variant, index) => {
      const figures = row.variants[variant];
      return {
        label: `Variant ${variant}`,
        value: figures ? `${formatRate(figures.rate)} · ${plural(figures.traces, "trace")}` : "—",
        color: seriesColor(index + 1),
      };
    }),
    { label: "Success", value: formatNumber(row.success), color: CHART_COLORS.success },
    { label: "Failure", value: formatNumber(row.failure), color: CHART_COLORS.failure },
    { label: "Unknown (not rated)", value: formatNumber(row.unknown), color: CHART_COLORS.unknown },
  ];

  return (
    <div>
      <div className="relative select-none">
        <ComposedChart
          data={rows}
          syncId={time.syncId}
          syncMethod="value"
          responsive
          style={{ width: "100%", height: 300 }}
          margin={CHART_MARGIN}
          cursor="crosshair"
          onMouseDown={(state) => {
            if (typeof state.activeLabel === "string") setDrag({ from: state.activeLabel, to: state.activeLabel });
          }}
          onMouseMove={(state) => {
            if (drag && typeof state.activeLabel === "string" && state.activeLabel !== drag.to) setDrag({ ...drag, to: state.activeLabel });
          }}
          onMouseUp={finishDrag}
          onMouseLeave={() => setDrag(null)}
        >
          <CartesianGrid vertical={false} stroke={CHART_COLORS.grid} />
          <XAxis {...timeAxisProps(time)} />
          <YAxis yAxisId={RATE_AXIS} domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={percentTick} {...VALUE_AXIS} />
          <YAxis yAxisId={TRACES_AXIS} orientation="right" allowDecimals={false} {...VALUE_AXIS} />
          {TRACE_BARS.map((bar) => (
            <Bar
              key={bar.key}
              yAxisId={TRACES_AXIS}
              dataKey={bar.key}
              stackId="traces"
              name={bar.name}
              fill={CHART_COLORS[bar.key]}
              fillOpacity={bar.opacity}
              isAnimationActive={false}
            />
          ))}
          <Area
            yAxisId={RATE_AXIS}
            dataKey={(row: OutcomeRow) => row.band}
            name="95 % interval"
            stroke="none"
            fill={CHART_COLORS.band}
            fillOpacity={0.45}
            isAnimationActive={false}
            activeDot={false}
          />
          <Line
            yAxisId={RATE_AXIS}
            dataKey="rate"
            name="Success rate"
            stroke={CHART_COLORS.rate}
            strokeWidth={2}
            dot={rows.length <= 60 ? { r: 2.5 } : false}
            isAnimationActive={false}
          />
          {series.variants.map((variant, index) => (
            <Line
              key={variant}
              yAxisId={RATE_AXIS}
              dataKey={(row: OutcomeRow) => row.variants[variant]?.rate ?? null}
              name={`Variant ${variant}`}
              stroke={seriesColor(index + 1)}
              strokeWidth={1.5}
              strokeDasharray="5 3"
              dot={false}
              isAnimationActive={false}
            />
          ))}
          {drag && drag.from !== drag.to ? (
            <ReferenceArea
              yAxisId={RATE_AXIS}
              x1={drag.from}
              x2={drag.to}
              fill={CHART_COLORS.rate}
              fillOpacity={0.12}
              stroke={CHART_COLORS.rate}
              strokeOpacity={0.4}
            />
          ) : null}
          <Tooltip
            isAnimationActive={false}
            content={bucketTooltip<OutcomeRow>({
              time,
              lines,
              footer: (row) => markerByStart.get(row.start)?.details.map((line) => <p key={line}>{line}</p>) ?? null,
            })}
          />
          {rows.length > 2 ? (
            <Brush
              dataKey="start"
              height={24}
              travellerWidth={8}
              stroke={CHART_COLORS.band}
              fill="#ffffff"
              ariaLabel="Zoom: drag the handles to choose buckets"
              tickFormatter={(value: unknown) => (typeof value === "string" ? tickLabel(value, bucket, timeZone) : "")}
              onDragEnd={(range) => zoomTo(range.startIndex, range.endIndex)}
            />
          ) : null}
          <VersionFlags playbookId={playbookId} markers={markers} />
        </ComposedChart>
      </div>
      <Legend
        items={[
          { label: "Success rate", color: CHART_COLORS.rate },
          { label: "95 % interval (Wilson)", color: CHART_COLORS.band, dashed: true },
          ...series.variants.map((variant, index) => ({ label: `Variant ${variant}`, color: seriesColor(index + 1) })),
          { label: "Traces: success · failure · unknown (bars, right axis)", color: CHART_COLORS.traces },
          ...(markers.length > 0 ? [{ label: "Version made (flag: open its diff)", color: CHART_COLORS.marker, dashed: true }] : []),
        ]}
      />
      {selectedRow ? (
        <BucketLinks
          playbookId={playbookId}
          row={selectedRow}
          variants={series.variants}
          variantFilter={variantFilter}
          time={time}
          onClose={() => setSelected(null)}
        />
      ) : null}
    </div>
  );
}

/** A version flag's accessible name: what was made, and where the link goes. */
function markerName(marker: VersionMarker): string {
  return `${marker.label}: ${marker.details.join("; ")}. Open the diff`;
}

/**
 * Flags where versions were made, drawn with the chart's own x scale: a dashed line down the plot
 * and, on top, a link to the version's diff. Hover or focus shows what the version did.
 */
function VersionFlags({ playbookId, markers }: { playbookId: string; markers: readonly VersionMarker[] }) {
  const router = useRouter();
  const scale = useXAxisScale();
  const plot = usePlotArea();
  const [hovered, setHovered] = useState<string | null>(null);
  if (!scale || !plot) return null;
  const placed = markers.flatMap((marker) => {
    const x = scale(marker.start, { position: "middle" });
    return x === undefined ? [] : [{ marker, x }];
  });
  const active = placed.find((entry) => entry.marker.start === hovered);
  return (
    <g>
      {placed.map(({ marker, x }) => {
        const href = markerHref(playbookId, marker);
        return (
          <g key={marker.start}>
            <line
              x1={x}
              x2={x}
              y1={plot.y}
              y2={plot.y + plot.height}
              stroke={CHART_COLORS.marker}
              strokeDasharray="3 3"
              strokeOpacity={0.7}
            />
            <a
              href={href}
              aria-label={markerName(marker)}
              onMouseDown={(event) => event.stopPropagation()}
              onMouseUp={(event) => event.stopPropagation()}
              onClick={(event) => {
                event.preventDefault();
                event.stopPropagation();
                router.push(href);
              }}
              onMouseEnter={() => setHovered(marker.start)}
              onMouseLeave={() => setHovered(null)}
              onFocus={() => setHovered(marker.start)}
              onBlur={() => setHovered(null)}
              style={{ cursor: "pointer" }}
            >
              <path d={`M${x},${plot.y} l0,-1 l10,0 l-3,4 l3,4 l-10,0 z`} transform={`translate(0,${-2})`} fill={CHART_COLORS.marker} />
              <circle cx={x} cy={plot.y + 3} r={9} fill="transparent" />
            </a>
          </g>
        );
      })}
      {active ? <MarkerCard marker={active.marker} x={active.x} plot={plot} /> : null}
    </g>
  );
}

const CARD_WIDTH = 250;

function MarkerCard({
  marker,
  x,
  plot,
}: {
  marker: VersionMarker;
  x: number;
  plot: { x: number; y: number; width: number; height: number };
}) {
  const left = x + CARD_WIDTH + 12 > plot.x + plot.width ? x - CARD_WIDTH - 8 : x + 10;
  return (
    <foreignObject
      x={left}
      y={plot.y + 8}
      width={CARD_WIDTH}
      height={Math.min(plot.height, 160)}
      style={{ pointerEvents: "none", overflow: "visible" }}
    >
      <div className="rounded-lg border border-line bg-surface px-3 py-2 text-xs shadow-pop">
        <p className="font-medium text-ink">{marker.label}</p>
        <ul className="mt-1 flex flex-col gap-0.5 text-ink-muted">
          {marker.details.slice(0, 6).map((line) => (
            <li key={line}>{line}</li>
          ))}
          {marker.details.length > 6 ? <li>and {marker.details.length - 6} more</li> : null}
        </ul>
        <p className="mt-1 text-ink-faint">Click to open the diff</p>
      </div>
    </foreignObject>
  );
}

/** After a click on a bucket: its figures, and links to its traces in the explorer. */
function BucketLinks({
  playbookId,
  row,
  variants,
  variantFilter,
  time: { bucket, timeZone },
  onClose,
}: {
  playbookId: string;
  row: OutcomeRow;
  variants: string[];
  variantFilter: string;
  time: ZonedBucket;
  onClose: () => void;
}) {
  const base = variantFilter ? { variant: variantFilter } : {};
  const links: { label: string; href: string; count: number }[] = [
    { label: "All traces", href: bucketTracesHref(playbookId, bucket, row.start, base), count: row.traces },
    { label: "Successes", href: bucketTracesHref(playbookId, bucket, row.start, { ...base, outcome: "success" }), count: row.success },
    { label: "Failures", href: bucketTracesHref(playbookId, bucket, row.start, { ...base, outcome: "failure" }), count: row.failure },
    { label: "Unknown", href: bucketTracesHref(playbookId, bucket, row.start, { ...base, outcome: "unknown" }), count: row.unknown },
    ...variants.flatMap((variant) => {
      const figures = row.variants[variant];
      if (!figures) return [];
      return [
        { label: `Variant ${variant}`, href: bucketTracesHref(playbookId, bucket, row.start, { variant }), count: figures.traces },
        {
          label: `Variant ${variant} failures`,
          href: bucketTracesHref(playbookId, bucket, row.start, { variant, outcome: "failure" }),
          count: figures.failure,
        },
      ];
    }),
  ];
  return (
    <div role="region" aria-label="Selected bucket" className="mx-2 mt-3 rounded-lg border border-line bg-subtle/50 px-3 py-2.5">
      <div className="flex items-start gap-2">
        <p className="text-[13px] text-ink">
          <span className="font-medium">{bucketSpanLabel(row.start, bucket, timeZone)}</span>
          <span className="text-ink-muted">
            {" "}
            · {plural(row.traces, "trace")} · success rate {formatRate(row.rate)} ({formatInterval(row.band)})
          </span>
        </p>
        <Button size="icon" variant="ghost" className="ml-auto size-6" aria-label="Close the selected bucket" onClick={onClose}>
          <X aria-hidden />
        </Button>
      </div>
      <ul className="mt-1.5 flex flex-wrap gap-x-4 gap-y-1 text-[13px]">
        {links
          .filter((link) => link.count > 0)
          .map((link) => (
            <li key={link.label}>
              <Link href={link.href} className="inline-flex items-center gap-1 text-accent-ink hover:underline">
                {link.label} ({formatNumber(link.count)}) <ExternalLink aria-hidden className="size-3" />
              </Link>
            </li>
          ))}
        {row.traces === 0 ? <li className="text-ink-faint">No traces in this bucket.</li> : null}
      </ul>
    </div>
  );
}
