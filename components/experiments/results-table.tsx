"use client";
// The results table as GrowthBook lays it out: per metric, one row per variant with its own figure,
// the difference to the control with its 95 % interval (in numbers and as a bar around zero), the
// p-value, Holm's adjusted p, the chance to beat the control and the verdict. Column headers name
// their method on hover; the methods note under the table says the same in full.
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { formatNumber } from "@/components/ui/format";
import { formatChance, formatDifference, formatDifferenceInterval, formatMetric, formatPValue, formatTick, formatUplift } from "./format";
import { IntervalAxis, IntervalBar } from "./interval-bar";
import { VERDICT_META } from "./labels";
import type { MetricGroup, ResultRow } from "./prepare";

/** Hover texts of the columns: the method behind each figure. */
export interface ColumnMethods {
  value: string;
  difference: string;
  pValue: string;
  adjustedPValue: string;
  chance: string;
  guardrails: string;
}

const TH = "whitespace-nowrap px-3 py-2 text-left text-xs font-medium text-ink-faint";
const TD = "px-3 py-2.5 align-middle text-[13px]";
const HELP = "cursor-help underline decoration-dotted decoration-ink-faint/60 underline-offset-2";

export function ResultsTable({
  group,
  methods,
  analysis,
}: {
  group: MetricGroup;
  methods: ColumnMethods;
  analysis: "per-trace" | "per-unit";
}) {
  const { metric, meta, primary } = group;
  const betterWord = meta.better === "higher" ? "higher is better" : "lower is better";
  const caption = `${meta.label} (${meta.unit}; ${betterWord})`;
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-[60rem] border-collapse" aria-label={`Results: ${meta.label}`}>
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-line bg-subtle/50">
          <tr>
            <th scope="col" className={cn(TH, "w-44")}>
              Variant
            </th>
            <th
              scope="col"
              className={cn(TH, "text-right")}
              title={primary ? "Units (distinct unit ids) · decided traces (success + failure)" : "Units · traces with this figure"}
            >
              <span className={HELP}>{primary ? "Units · decided" : "Units · traces"}</span>
            </th>
            <th scope="col" className={cn(TH, "text-right")} title={primary ? methods.value : methods.guardrails}>
              <span className={HELP}>{primary ? "Success rate (95 % CI)" : meta.label}</span>
            </th>
            <th scope="col" className={cn(TH, "text-right")} title={primary ? methods.difference : methods.guardrails}>
              <span className={HELP}>Change vs control (95 % CI)</span>
            </th>
            <th scope="col" className={cn(TH, "w-[22%] min-w-48")}>
              <span className="sr-only">Interval of the change, drawn around zero</span>
              <IntervalAxis scale={group.scale} format={(value) => formatTick(metric, value)} />
            </th>
            <th
              scope="col"
              className={cn(TH, "text-right")}
              title={primary ? methods.pValue : `${methods.guardrails} Not adjusted for multiple comparisons.`}
            >
              <span className={HELP}>p-value</span>
            </th>
            {primary ? (
              <>
                <th scope="col" className={cn(TH, "text-right")} title={methods.adjustedPValue}>
                  <span className={HELP}>Adj. p</span>
                </th>
                <th scope="col" className={cn(TH, "text-right")} title={methods.chance}>
                  <span className={HELP}>Chance to beat control</span>
                </th>
              </>
            ) : null}
            <th scope="col" className={TH}>
              Verdict
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {group.rows.map((row) => (
            <Row key={row.variant} row={row} group={group} analysis={analysis} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Row({ row, group, analysis }: { row: ResultRow; group: MetricGroup; analysis: "per-trace" | "per-unit" }) {
  const { metric, primary } = group;
  const verdict = VERDICT_META[row.verdict];
  const intervalText = formatDifferenceInterval(metric, row.ci95);
  return (
    <tr className={cn("transition-colors hover:bg-subtle/40", row.isControl && "bg-subtle/20")} data-variant={row.variant}>
      <th scope="row" className={cn(TD, "whitespace-nowrap text-left font-normal")}>
        <span className="font-mono font-medium text-ink">{row.variant}</span>
        {/* "Control" as a name would only repeat the badge. */}
        {row.variantName !== row.variant && !(row.isControl && row.variantName.toLowerCase() === "control") ? (
          <span className="ml-1.5 text-ink-muted">{row.variantName}</span>
        ) : null}
        {row.isControl ? (
          <Badge tone="neutral" className="ml-1.5">
            Control
          </Badge>
        ) : null}
      </th>
      <td className={cn(TD, "whitespace-nowrap text-right tabular-nums text-ink-muted")}>
        {formatNumber(row.units)} · {formatNumber(row.n)}
      </td>
      <td className={cn(TD, "whitespace-nowrap text-right tabular-nums")}>
        <span className="font-medium text-ink">{formatMetric(metric, row.value)}</span>
        {primary && row.valueInterval ? (
          <span className="block text-[11px] text-ink-faint">
            {formatMetric(metric, row.valueInterval[0])}–{formatMetric(metric, row.valueInterval[1])}
          </span>
        ) : null}
      </td>
      <td className={cn(TD, "whitespace-nowrap text-right tabular-nums")}>
        {row.isControl ? (
          <span className="text-ink-faint">baseline</span>
        ) : (
          <>
            <span className="font-medium text-ink">{formatDifference(metric, row.difference)}</span>
            {row.relativeUplift !== null ? <span className="ml-1 text-ink-muted">({formatUplift(row.relativeUplift)})</span> : null}
            <span className="block text-[11px] text-ink-faint">{intervalText}</span>
          </>
        )}
      </td>
      <td className={cn(TD, "py-1")}>
        {row.isControl ? null : <IntervalBar interval={row.ci95} estimate={row.difference} scale={group.scale} verdict={row.verdict} />}
        {!row.isControl && row.ci95 ? (
          <span className="sr-only">
            95 % interval of the change: {intervalText}
            {row.ci95[0] > 0 || row.ci95[1] < 0 ? ", which excludes zero" : ", which includes zero"}
          </span>
        ) : null}
      </td>
      <td className={cn(TD, "whitespace-nowrap text-right tabular-nums text-ink")}>{row.isControl ? "" : formatPValue(row.pValue)}</td>
      {primary ? (
        <>
          <td className={cn(TD, "whitespace-nowrap text-right tabular-nums text-ink")}>
            {row.isControl ? "" : formatPValue(row.adjustedPValue)}
          </td>
          <td className={cn(TD, "whitespace-nowrap text-right tabular-nums text-ink")}>
            {row.isControl ? "" : formatChance(row.chanceToBeatControl)}
          </td>
        </>
      ) : null}
      <td className={cn(TD, "whitespace-nowrap")}>
        {row.isControl || row.verdict === "none" ? (
          row.isControl ? null : (
            <span className="text-xs text-ink-faint">No data yet</span>
          )
        ) : (
          <Badge tone={verdict.tone} title={primary ? `Holm-adjusted p < 0.05 (${analysis} analysis)` : "Welch's t-test, p < 0.05"}>
            {row.verdict === "better" && primary
              ? "Significant winner"
              : row.verdict === "worse" && !primary
                ? "Guardrail: worse"
                : verdict.label}
          </Badge>
        )}
      </td>
    </tr>
  );
}
