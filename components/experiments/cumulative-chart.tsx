"use client";
// Each variant's success rate over the units exposed up to each day (UTC), with all their traces: the
// lines swing while the sample is small and settle as it grows, which is why the design reads the
// results at the end.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { ChartEmpty, Legend, Swatch } from "@/components/ui/chart";
import { CHART_COLORS, seriesColor } from "@/components/shared/chart-palette";
import { formatNumber } from "@/components/ui/format";
import type { ExperimentResults } from "@/server/experiments/schemas";
import { cumulativeRows, dayLabel, type CumulativeRow } from "./cumulative";
import { formatRate } from "./format";

export function CumulativeChart({ results }: { results: Pick<ExperimentResults, "timeline" | "variants" | "control"> }) {
  const keys = results.variants.map((variant) => variant.key);
  const rows = cumulativeRows(results.timeline, keys);
  if (rows.length === 0) {
    return (
      <ChartEmpty title="No traces yet">
        Each variant&apos;s cumulative success rate appears here, day by day, once agents report outcomes.
      </ChartEmpty>
    );
  }
  const rates = rows
    .flatMap((row) => Object.values(row.variants).map((figures) => figures.rate))
    .filter((rate): rate is number => rate !== null);
  const low = Math.max(0, Math.floor((Math.min(...rates, 1) - 0.05) * 10) / 10);
  const high = Math.min(1, Math.ceil((Math.max(...rates, 0) + 0.05) * 10) / 10);
  // Round ticks: every 5 points on a narrow axis, every 10 (or 25) on a wider one.
  const step = high - low <= 0.3 ? 0.05 : high - low <= 0.6 ? 0.1 : 0.25;
  const ticks = Array.from({ length: Math.round((high - low) / step) + 1 }, (_, i) => Math.round((low + i * step) * 100) / 100);
  return (
    <div>
      <LineChart data={rows} responsive style={{ width: "100%", height: 260 }} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
        <CartesianGrid vertical={false} stroke={CHART_COLORS.grid} />
        <XAxis
          dataKey="date"
          tickFormatter={(value: unknown) => (typeof value === "string" ? dayLabel(value) : "")}
          minTickGap={24}
          tick={{ fontSize: 11, fill: CHART_COLORS.axis }}
          tickLine={false}
          axisLine={{ stroke: CHART_COLORS.grid }}
        />
        <YAxis
          domain={[low, high]}
          ticks={ticks}
          tickFormatter={(value: number) => `${Math.round(value * 100)} %`}
          tick={{ fontSize: 11, fill: CHART_COLORS.axis }}
          tickLine={false}
          axisLine={false}
          width={44}
        />
        {keys.map((key, index) => (
          <Line
            key={key}
            dataKey={(row: CumulativeRow) => row.variants[key]?.rate ?? null}
            name={`Variant ${key}`}
            stroke={seriesColor(index)}
            strokeWidth={key === results.control ? 2.5 : 2}
            strokeDasharray={key === results.control ? "6 3" : undefined}
            dot={rows.length <= 30 ? { r: 2.5 } : false}
            connectNulls
            isAnimationActive={false}
          />
        ))}
        <Tooltip
          isAnimationActive={false}
          content={({ active, payload }) => {
            const row = payload?.[0]?.payload as CumulativeRow | undefined;
            if (!active || !row) return null;
            return (
              <div className="rounded-lg border border-line bg-surface px-3 py-2 text-xs shadow-pop">
                <p className="mb-1.5 font-medium text-ink">Units exposed by {dayLabel(row.date)} (UTC)</p>
                <ul className="flex flex-col gap-1">
                  {keys.map((key, index) => {
                    const figures = row.variants[key];
                    return (
                      <li key={key} className="flex items-center gap-2">
                        <Swatch color={seriesColor(index)} dashed={key === results.control} />
                        <span className="text-ink-muted">Variant {key}</span>
                        <span className="ml-auto pl-3 font-medium tabular-nums text-ink">
                          {formatRate(figures?.rate)} · {formatNumber(figures?.decided ?? 0)} decided
                        </span>
                      </li>
                    );
                  })}
                </ul>
              </div>
            );
          }}
        />
      </LineChart>
      <Legend
        items={keys.map((key, index) => ({
          label: key === results.control ? `Variant ${key} (control)` : `Variant ${key}`,
          color: seriesColor(index),
          dashed: key === results.control,
        }))}
      />
    </div>
  );
}
