"use client";
// One comparison's 95 % interval of the difference to control, drawn as a horizontal bar on the
// metric's shared scale with a line at zero (no change) and a dot at the estimate, as GrowthBook's
// results table does. The numbers are in the row beside it; the bar is for the eye (aria-hidden).
import { Bar, BarChart, ReferenceDot, ReferenceLine, XAxis, YAxis } from "recharts";
import { positionOn, type IntervalScale } from "./interval-scale";
import { VERDICT_COLORS, type Verdict } from "./labels";

const ROW = "difference";

export function IntervalBar({
  interval,
  estimate,
  scale,
  verdict,
  height = 28,
}: {
  interval: readonly [number, number] | null;
  estimate: number | null;
  scale: IntervalScale;
  verdict: Verdict;
  height?: number;
}) {
  const color = VERDICT_COLORS[verdict];
  const data = [{ name: ROW, range: interval ? [interval[0], interval[1]] : null }];
  return (
    <div aria-hidden className="w-full min-w-32" data-interval-bar={verdict}>
      <BarChart
        layout="vertical"
        data={data}
        responsive
        style={{ width: "100%", height }}
        margin={{ top: 4, right: 6, bottom: 4, left: 6 }}
        barCategoryGap={0}
        accessibilityLayer={false}
      >
        <XAxis type="number" domain={scale.domain} ticks={scale.ticks} allowDataOverflow hide />
        <YAxis type="category" dataKey="name" hide />
        {scale.ticks
          .filter((tick) => tick !== 0)
          .map((tick) => (
            <ReferenceLine key={tick} x={tick} stroke="#e4e4e9" strokeDasharray="2 3" zIndex={-50} />
          ))}
        <Bar
          dataKey="range"
          fill={color}
          fillOpacity={0.35}
          stroke={color}
          strokeWidth={1}
          barSize={12}
          radius={3}
          isAnimationActive={false}
        />
        <ReferenceLine x={0} stroke="#6b6b78" strokeWidth={1.5} />
        {estimate !== null ? (
          <ReferenceDot x={clampTo(scale, estimate)} y={ROW} r={3.5} fill={color} stroke="#ffffff" strokeWidth={1} />
        ) : null}
      </BarChart>
    </div>
  );
}

function clampTo(scale: IntervalScale, value: number): number {
  return Math.min(scale.domain[1], Math.max(scale.domain[0], value));
}

/**
 * The scale's ends and zero above the bars' column (−10 pp · 0 · +10 pp), placed as the bars place
 * them; the half-way ticks are only drawn as faint lines in the bars, their labels would crowd.
 */
export function IntervalAxis({ scale, format }: { scale: IntervalScale; format: (value: number) => string }) {
  const labelled = [scale.domain[0], 0, scale.domain[1]];
  return (
    <div aria-hidden className="relative mx-1.5 h-4 text-[11px] tabular-nums text-ink-faint">
      {labelled.map((tick, index) => {
        const left = positionOn(scale, tick) * 100;
        const edge = index === 0 ? "translate-x-0" : index === labelled.length - 1 ? "-translate-x-full" : "-translate-x-1/2";
        return (
          <span key={tick} className={`absolute top-0 whitespace-nowrap ${edge}`} style={{ left: `${left}%` }}>
            {format(tick)}
          </span>
        );
      })}
    </div>
  );
}
