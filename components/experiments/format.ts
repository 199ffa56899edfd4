// How the experiment pages spell a figure: rates to a tenth of a percent and differences in
// percentage points (as the Evolution charts do), means in their own unit, p-values to three
// decimals with "< 0.001" below that.
import { formatCost, formatDuration, formatNumber, formatRate, formatRateChange } from "@/components/ui/format";
import type { MetricKey } from "./prepare";

export { formatRate, formatRateChange };

/** A metric's value for one variant: "42.0 %", "$0.0123", "1,840", "5.4 s". */
export function formatMetric(metric: MetricKey, value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  switch (metric) {
    case "successRate":
      return formatRate(value);
    case "costUsd":
      return formatCost(value);
    case "tokens":
      return formatNumber(Math.round(value));
    case "durationMs":
      return formatDuration(value);
  }
}

function signed(value: number, text: (magnitude: number) => string): string {
  if (value === 0) return `±${text(0)}`;
  return `${value > 0 ? "+" : "−"}${text(Math.abs(value))}`;
}

/** A difference to the control: "+3.0 pp", "−$0.0010", "+120", "−340 ms". */
export function formatDifference(metric: MetricKey, value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  switch (metric) {
    case "successRate":
      return formatRateChange(value);
    case "costUsd":
      return signed(value, (m) => (m === 0 ? "$0" : m < 0.0001 ? "$0.0000" : `$${m < 1 ? m.toFixed(4) : m.toFixed(2)}`));
    case "tokens":
      return signed(value, (m) => formatNumber(Math.round(m)));
    case "durationMs":
      return signed(value, (m) => formatDuration(m));
  }
}

/** An interval of a difference: "+1.0 pp to +5.0 pp". */
export function formatDifferenceInterval(metric: MetricKey, interval: readonly [number, number] | null | undefined): string {
  return interval ? `${formatDifference(metric, interval[0])} to ${formatDifference(metric, interval[1])}` : "—";
}

/** An axis tick of a difference: "+5 pp", "0", "−$0.01". */
export function formatTick(metric: MetricKey, value: number): string {
  if (value === 0) return "0";
  if (metric === "successRate") {
    const points = Math.abs(value * 100);
    return `${value > 0 ? "+" : "−"}${Number.isInteger(Math.round(points * 10) / 10) ? points.toFixed(0) : points.toFixed(1)} pp`;
  }
  return formatDifference(metric, value);
}

/** "0.002", "< 0.001", "1.000"; null: "—". */
export function formatPValue(p: number | null | undefined): string {
  if (p === null || p === undefined) return "—";
  if (p < 0.001) return "< 0.001";
  return p.toFixed(3);
}

/** A relative change: "+7.1 %", "−2.0 %". */
export function formatUplift(share: number | null | undefined): string {
  if (share === null || share === undefined) return "—";
  const percent = (share * 100).toFixed(1);
  if (percent === "0.0" || percent === "-0.0") return "±0.0 %";
  return share > 0 ? `+${percent} %` : `−${percent.slice(1)} %`;
}

/** A probability as a percentage: "99.8 %"; the extremes as "> 99.9 %" and "< 0.1 %" (never a certain 100). */
export function formatChance(probability: number | null | undefined): string {
  if (probability === null || probability === undefined) return "—";
  if (probability > 0.999) return "> 99.9 %";
  if (probability < 0.001) return "< 0.1 %";
  return `${(probability * 100).toFixed(1)} %`;
}

/** A weight or coverage: 0.5 → "50 %", 1/3 → "33.33 %". */
export function formatShare(share: number): string {
  return `${Math.round(share * 10_000) / 100} %`;
}
