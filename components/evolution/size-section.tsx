"use client";
// Size: active bullets per section (stacked) and the compiled playbook's tokens against the
// context budget, at the end of every bucket.
import { useMemo } from "react";
import { Area, ComposedChart, Line, ReferenceLine, Tooltip, YAxis } from "recharts";
import { formatNumber } from "@/components/ui/format";
import { ChartEmpty } from "@/components/ui/chart";
import { ChartCard } from "./chart-card";
import { bucketTooltip, TimeChart, VALUE_AXIS, versionLines, type SectionProps } from "./chart-parts";
import { compactTick } from "./format";
import { CHART_COLORS, seriesColor } from "@/components/shared/chart-palette";
import { sizeSeries, sizeTable, type SizeRow } from "./prepare/size";

export function SizeSection({ result, time, titleSuffix, chartKey }: SectionProps) {
  const series = useMemo(() => sizeSeries(result, result.outcomes), [result]);
  const table = useMemo(() => sizeTable(series, `Size${titleSuffix}`), [series, titleSuffix]);
  const known = series.rows.some((row) => row.version !== null);
  const last = [...series.rows].reverse().find((row) => row.version !== null);
  return (
    <ChartCard
      title="Size"
      description={
        last
          ? `${formatNumber(last.activeBullets ?? 0)} active bullets, ${formatNumber(last.tokens ?? 0)} of ${formatNumber(series.tokenBudget)} budget tokens at v${last.version}.`
          : "Active bullets per section and the compiled playbook's tokens."
      }
      tables={[table]}
      time={time}
      resetKey={chartKey}
    >
      {known ? (
        <TimeChart
          chart={ComposedChart}
          rows={series.rows}
          height={240}
          time={time}
          legend={[
            ...series.sections.map((section, index) => ({ label: section.name, color: seriesColor(index) })),
            { label: "Tokens (right axis)", color: CHART_COLORS.tokens },
            { label: "Token budget", color: CHART_COLORS.budget, dashed: true },
          ]}
        >
          <YAxis yAxisId="bullets" allowDecimals={false} tickFormatter={compactTick} {...VALUE_AXIS} />
          <YAxis yAxisId="tokens" orientation="right" allowDecimals={false} tickFormatter={compactTick} {...VALUE_AXIS} />
          {series.sections.map((section, index) => (
            <Area
              key={section.key}
              yAxisId="bullets"
              type="stepAfter"
              dataKey={(row: SizeRow) => (row.version === null ? null : (row.sections[section.key] ?? 0))}
              name={section.name}
              stackId="sections"
              stroke={seriesColor(index)}
              fill={seriesColor(index)}
              fillOpacity={0.25}
              isAnimationActive={false}
            />
          ))}
          <Line
            yAxisId="tokens"
            type="stepAfter"
            dataKey="tokens"
            name="Tokens"
            stroke={CHART_COLORS.tokens}
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
          <ReferenceLine
            yAxisId="tokens"
            y={series.tokenBudget}
            stroke={CHART_COLORS.budget}
            strokeDasharray="6 4"
            ifOverflow="extendDomain"
            label={{
              value: `Budget ${formatNumber(series.tokenBudget)}`,
              position: "insideTopRight",
              fontSize: 11,
              fill: CHART_COLORS.budget,
            }}
          />
          <Tooltip
            isAnimationActive={false}
            content={bucketTooltip<SizeRow>({
              time,
              lines: (row) =>
                versionLines(row.version, () => [
                  { label: "Active bullets", value: formatNumber(row.activeBullets ?? 0) },
                  ...series.sections.map((section, index) => ({
                    label: section.name,
                    value: formatNumber(row.sections[section.key] ?? 0),
                    color: seriesColor(index),
                  })),
                  { label: "Tokens", value: formatNumber(row.tokens ?? 0), color: CHART_COLORS.tokens },
                  { label: "Token budget", value: formatNumber(series.tokenBudget), color: CHART_COLORS.budget, dashed: true },
                ]),
            })}
          />
        </TimeChart>
      ) : (
        <ChartEmpty title="No version in this range yet">
          Size is read from the playbook&apos;s versions: import bullets or approve a delta, and each version&apos;s active bullets and
          tokens show here.
        </ChartEmpty>
      )}
    </ChartCard>
  );
}
