"use client";
// What happened to the playbook and what it cost: churn (operations per bucket), review (deltas
// proposed and how they were decided), and the LLM cost of each role.
import { useMemo } from "react";
import { formatCost, formatDuration, formatNumber, formatRate } from "@/components/ui/format";
import { LLM_ROLES, type LlmRole } from "@/server/metrics/schemas";
import { ChartEmpty } from "@/components/ui/chart";
import { ChartCard, DataTableView } from "./chart-card";
import type { SectionProps } from "./chart-parts";
import { formatInterval } from "./format";
import { OPERATION_COLORS, ORIGIN_COLORS, ROLE_COLORS, ROLE_LABELS, VERSION_ORIGIN_LABELS } from "@/components/shared/chart-palette";
import { churnLabel, churnSeries, churnTable, type ChurnKey } from "./prepare/churn";
import { llmRows, llmTable, llmTotalsTable, type LlmRow } from "./prepare/llm-cost";
import { reviewSeries, reviewTable, reviewTotalsTable, type ReviewRow } from "./prepare/review";
import type { ChurnGrouping } from "./range";
import { Segmented } from "./segmented";
import { StackedBars, type BarSeries } from "./stacked-bars";

const CHURN_COLORS: Record<ChurnKey, string> = { ...OPERATION_COLORS, ...ORIGIN_COLORS };

export function ChurnSection({
  result,
  time,
  titleSuffix,
  chartKey,
  grouping,
  includeTags,
  onGrouping,
}: SectionProps & { grouping: ChurnGrouping; includeTags: boolean; onGrouping: (grouping: ChurnGrouping) => void }) {
  const series = useMemo(() => churnSeries(result, grouping, includeTags), [result, grouping, includeTags]);
  const table = useMemo(() => churnTable(series, `Churn by ${grouping}${titleSuffix}`), [series, grouping, titleSuffix]);
  const bars = series.keys.map((key): BarSeries<(typeof series.rows)[number]> => ({
    key,
    label: churnLabel(key),
    color: CHURN_COLORS[key],
    value: (row) => row.values[key] ?? 0,
  }));
  return (
    <ChartCard
      title="Churn"
      description={
        includeTags
          ? "Operations applied per bucket, counter tags included."
          : "Operations applied per bucket. Counter tags from reflections are left out; “Every version” shows them."
      }
      tables={[table]}
      time={time}
      resetKey={chartKey}
      controls={
        <Segmented<ChurnGrouping>
          label="Group operations"
          value={grouping}
          onChange={onGrouping}
          options={[
            { value: "type", label: "By type" },
            { value: "origin", label: "By origin" },
          ]}
        />
      }
    >
      {series.keys.length === 0 ? (
        <ChartEmpty title="No change applied in this range">
          Every applied delta (a curator proposal you approved, an edit, a rollback) makes a version; its operations show here by type or by
          who made them.
        </ChartEmpty>
      ) : (
        <StackedBars rows={series.rows} series={bars} time={time} format={formatNumber} />
      )}
    </ChartCard>
  );
}

export function ReviewSection({ result, time, titleSuffix, chartKey }: SectionProps) {
  const series = useMemo(() => reviewSeries(result), [result]);
  const table = useMemo(() => reviewTable(series, `Review per bucket${titleSuffix}`), [series, titleSuffix]);
  const totals = useMemo(() => reviewTotalsTable(result, `Review by origin${titleSuffix}`), [result, titleSuffix]);
  const bars = series.origins.map((origin): BarSeries<ReviewRow> => ({
    key: origin,
    label: VERSION_ORIGIN_LABELS[origin],
    color: ORIGIN_COLORS[origin],
    value: (row) => row.proposed[origin] ?? 0,
  }));
  const decided = result.review.byOrigin.filter((entry) => entry.proposed > 0);
  return (
    <ChartCard
      title="Review"
      description="Deltas proposed per bucket by origin; below, how each origin's deltas were decided."
      tables={[table, totals]}
      time={time}
      resetKey={chartKey}
    >
      {series.origins.length === 0 ? (
        <ChartEmpty title="No delta proposed in this range">
          The curator proposes deltas after every few reflections (the playbook&apos;s curator frequency), pruning when its policy is on;
          you approve or reject them in Review. Their counts, acceptance and time to decision show here.
        </ChartEmpty>
      ) : (
        <>
          <StackedBars rows={series.rows} series={bars} time={time} format={formatNumber} height={200} />
          <ul className="mt-3 grid gap-2 px-2 sm:grid-cols-2" aria-label="Review by origin">
            {decided.map((entry) => (
              <li key={entry.origin} className="rounded-lg border border-line px-3 py-2 text-xs">
                <p className="font-medium text-ink">{VERSION_ORIGIN_LABELS[entry.origin]}</p>
                <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-ink-muted">
                  <dt>Accepted</dt>
                  <dd className="text-right tabular-nums text-ink">
                    {formatRate(entry.acceptanceRate)} <span className="text-ink-faint">({formatInterval(entry.ci95)})</span>
                  </dd>
                  <dt>Time to decision</dt>
                  <dd className="text-right tabular-nums text-ink">
                    {formatDuration(entry.medianDecisionMs)} median · {formatDuration(entry.p90DecisionMs)} p90
                  </dd>
                  <dt>Near-duplicates caught</dt>
                  <dd className="text-right tabular-nums text-ink">{formatNumber(entry.nearDuplicates)}</dd>
                  <dt>Auto-applied</dt>
                  <dd className="text-right tabular-nums text-ink">{formatRate(entry.autoAppliedShare)}</dd>
                </dl>
              </li>
            ))}
          </ul>
        </>
      )}
    </ChartCard>
  );
}

export function LlmSection({ result, time, titleSuffix, chartKey }: SectionProps) {
  const rows = useMemo(() => llmRows(result), [result]);
  const table = useMemo(() => llmTable(rows, `LLM cost per bucket${titleSuffix}`), [rows, titleSuffix]);
  const totals = useMemo(() => llmTotalsTable(result, `LLM cost by role${titleSuffix}`), [result, titleSuffix]);
  /** A bar per role, stacked: the reflector, the curator and the agents. */
  const byRole = (value: (row: LlmRow, role: LlmRole) => number) =>
    LLM_ROLES.map((role): BarSeries<LlmRow> => ({
      key: role,
      label: ROLE_LABELS[role],
      color: ROLE_COLORS[role],
      value: (row) => value(row, role),
    }));
  // Both charts share the buckets, the zone and the hover.
  const chart = { rows, time, height: 200 };
  const any = result.llm.byRole.some((entry) => entry.runs > 0);
  return (
    <ChartCard
      title="LLM cost"
      description="Tokens and cost per bucket by role: the reflector's and curator's runs, and the agents' own usage as their traces report it."
      tables={[table]}
      shownTables={[totals]}
      time={time}
      resetKey={chartKey}
    >
      {!any ? (
        <ChartEmpty title="No run and no agent usage in this range">
          Reflector and curator runs record their tokens and cost (the offline provider costs nothing); agents report their own with{" "}
          <code className="font-mono">usage.inputTokens</code>, <code className="font-mono">usage.outputTokens</code> and{" "}
          <code className="font-mono">usage.costUsd</code> on each trace.
        </ChartEmpty>
      ) : (
        <>
          <div className="grid gap-4 lg:grid-cols-2">
            <div>
              <h3 className="px-2 pb-1 text-xs font-medium text-ink-faint">Cost (USD)</h3>
              <StackedBars
                {...chart}
                series={byRole((row, role) => row.costUsd[role])}
                format={formatCost}
                tick={(value) => `$${value < 1 ? value.toFixed(value === 0 ? 0 : 3) : Math.round(value)}`}
                decimals
              />
            </div>
            <div>
              <h3 className="px-2 pb-1 text-xs font-medium text-ink-faint">Tokens (input + output)</h3>
              <StackedBars {...chart} series={byRole((row, role) => row.tokens[role])} format={formatNumber} />
            </div>
          </div>
          <div className="mt-3 rounded-lg border border-line">
            <DataTableView table={totals} time={time} />
          </div>
        </>
      )}
    </ChartCard>
  );
}
