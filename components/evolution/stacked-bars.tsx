"use client";
// Stacked bars per bucket, synchronised with the other time charts: churn by type or origin,
// deltas proposed by origin, tokens and cost by role.
import { Bar, BarChart, Tooltip, YAxis } from "recharts";
import { bucketTooltip, TimeChart, VALUE_AXIS, type TimeFrame } from "./chart-parts";
import { compactTick } from "./format";

export interface BarSeries<Row> {
  key: string;
  label: string;
  color: string;
  value: (row: Row) => number;
}

export function StackedBars<Row extends { start: string }>({
  rows,
  series,
  time,
  format,
  height = 220,
  total = true,
  tick = compactTick,
  decimals = false,
}: {
  rows: readonly Row[];
  series: readonly BarSeries<Row>[];
  time: TimeFrame;
  /** How a value reads in the tooltip. */
  format: (value: number) => string;
  height?: number;
  /** A "Total" line in the tooltip. */
  total?: boolean;
  tick?: (value: number) => string;
  /** Values with fractions (dollars). */
  decimals?: boolean;
}) {
  return (
    <TimeChart
      chart={BarChart}
      rows={rows}
      height={height}
      time={time}
      legend={series.map((entry) => ({ label: entry.label, color: entry.color }))}
    >
      <YAxis allowDecimals={decimals} tickFormatter={tick} {...VALUE_AXIS} />
      {series.map((entry) => (
        <Bar key={entry.key} dataKey={entry.value} stackId="stack" name={entry.label} fill={entry.color} isAnimationActive={false} />
      ))}
      <Tooltip
        isAnimationActive={false}
        cursor={{ fill: "#f2f2f5" }}
        content={bucketTooltip<Row>({
          time,
          lines: (row) => [
            ...series.map((entry) => ({ label: entry.label, value: format(entry.value(row)), color: entry.color })),
            ...(total && series.length > 1
              ? [{ label: "Total", value: format(series.reduce((sum, entry) => sum + entry.value(row), 0)) }]
              : []),
          ],
        })}
      />
    </TimeChart>
  );
}
