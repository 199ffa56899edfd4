"use client";
// The Evolution tab: is the playbook getting better? Outcomes with version markers, size, counters,
// churn, review and LLM cost over one range, all charts sharing their buckets, tooltip and zoom.
// The range, bucket and filters live in the URL; the data is prepared in prepare.ts.
import { keepPreviousData, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { useMemo, useState, type ReactNode } from "react";
import { useTRPC } from "@/components/trpc/client";
import { cn } from "@/components/ui/cn";
import { formatNumber, formatRate, plural } from "@/components/ui/format";
import { LoadFailed } from "@/components/ui/load-failed";
import { Notice } from "@/components/ui/notice";
import { historyHref } from "@/components/ui/routes";
import { LoadingStatus, Skeleton, Skeletons } from "@/components/ui/skeleton";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import type { MetricsResult } from "@/server/metrics/schemas";
import { ChurnSection, LlmSection, ReviewSection } from "./activity-sections";
import { ChartCard } from "./chart-card";
import { syncIdFor, type SectionProps } from "./chart-parts";
import { CountersSection, MoversSection, ScoresSection } from "./counters-section";
import { NoTraces } from "./evolution-empty";
import { formatInterval } from "./format";
import { bucketTracesHref, OutcomesChart } from "./outcomes-chart";
import { coverage, outcomeSeries, outcomeTable, SPARSE_DECIDED } from "./prepare/outcomes";
import { versionMarkers, versionTable } from "./prepare/versions";
import { evolutionQuery } from "./query";
import { RangeControls } from "./range-controls";
import { parseEvolutionFilters, writeEvolutionFilters, type Bucket, type EvolutionFilters } from "./range";
import { SizeSection } from "./size-section";
import { rangeLabel } from "./time-labels";
import { useClock } from "./use-clock";
import { useTimeZone } from "./use-time-zone";

const BUCKET_WORDS: Record<Bucket, { one: string; many: string }> = {
  hour: { one: "hourly bucket", many: "hourly buckets" },
  day: { one: "daily bucket", many: "daily buckets" },
  week: { one: "weekly bucket", many: "weekly buckets" },
};

const UTC_BUCKETS: Record<Bucket, string> = {
  hour: "UTC hours",
  day: "UTC days (from 00:00 UTC)",
  week: "UTC weeks (from Monday 00:00 UTC)",
};

export function EvolutionView({
  playbookId,
  renderedAt,
  initialEarliest,
}: {
  playbookId: string;
  /** The server's clock when it rendered the page: hydration resolves the range with it. */
  renderedAt: number;
  /** Where an "all" range starts, when the server looked it up. */
  initialEarliest: number | null;
}) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const { filters, update } = useUrlFilters(parseEvolutionFilters, writeEvolutionFilters);
  const timeZone = useTimeZone();

  const now = useClock(renderedAt);
  const [earliest, setEarliest] = useState<number | null>(initialEarliest);
  const { range, input } = useMemo(() => evolutionQuery(playbookId, filters, now, earliest), [playbookId, filters, now, earliest]);
  const query = useQuery({ ...trpc.metrics.playbook.queryOptions(input), placeholderData: keepPreviousData });
  const result = query.data;

  // Every answer says where the playbook's history starts: remember it for the "all" preset.
  const seenEarliest = result?.earliest ? Date.parse(result.earliest) : null;
  if (seenEarliest !== null && seenEarliest !== earliest) setEarliest(seenEarliest);

  const [variants, setVariants] = useState<string[]>([]);
  const seenVariants = result?.outcomesByVariant.map((series) => series.variant) ?? [];
  if (seenVariants.some((variant) => !variants.includes(variant))) setVariants([...new Set([...variants, ...seenVariants])].sort());

  return (
    <div className="flex flex-col gap-4 pb-16">
      <div className="flex flex-col gap-2">
        <RangeControls filters={filters} range={range} variants={variants} timeZone={timeZone} update={update} />
        <p className="text-xs text-ink-muted" aria-live="polite">
          <span className="font-medium text-ink">{rangeLabel(range.from.toISOString(), range.to.toISOString(), timeZone)}</span> ·{" "}
          {formatNumber(range.points)} {range.points === 1 ? BUCKET_WORDS[range.bucket].one : BUCKET_WORDS[range.bucket].many}
          {range.bucketWidened ? ` (${filters.bucket} buckets would make more than 500 points)` : ""}. Buckets are{" "}
          {UTC_BUCKETS[range.bucket]}; times are shown in your time zone, {timeZone}.
          {query.isFetching && result ? <span className="ml-2 text-accent-ink">Updating…</span> : null}
        </p>
      </div>

      {query.isError && !result ? (
        <LoadFailed what="metrics" error={query.error} onRetry={() => void query.refetch()} />
      ) : !result ? (
        <EvolutionSkeleton />
      ) : (
        <div
          className={cn("flex flex-col gap-4 transition-opacity", query.isPlaceholderData && "opacity-60")}
          aria-busy={query.isFetching || undefined}
        >
          {query.isError ? (
            <Notice tone="danger" compact>
              {query.error.message}
            </Notice>
          ) : null}
          <Charts
            playbookId={playbookId}
            playbookName={playbook.name}
            result={result}
            filters={filters}
            timeZone={timeZone}
            renderedAt={renderedAt}
            update={update}
          />
        </div>
      )}
    </div>
  );
}

function Charts({
  playbookId,
  playbookName,
  result,
  filters,
  timeZone,
  renderedAt,
  update,
}: {
  playbookId: string;
  playbookName: string;
  result: MetricsResult;
  filters: EvolutionFilters;
  timeZone: string;
  renderedAt: number;
  update: (patch: Partial<EvolutionFilters>, mode?: "push" | "replace") => void;
}) {
  const bucket = result.bucket;
  const sections: SectionProps = {
    // A new range, bucket or filter draws the charts afresh: their zoom and brush start over.
    chartKey: `${result.from}|${result.to}|${bucket}|${result.variant ?? ""}|${result.contentOnly}`,
    playbookId,
    result,
    time: { bucket, timeZone, syncId: syncIdFor(playbookId) },
    // The CSV says which playbook and range it holds; UTC, so the name does not depend on the reader.
    titleSuffix: ` · ${playbookName} · ${rangeLabel(result.from, result.to, "UTC")}`,
  };
  return (
    <div className="flex flex-col gap-4">
      <OutcomesSection {...sections} filters={filters} renderedAt={renderedAt} update={update} />
      <div className="grid gap-4 xl:grid-cols-2">
        <SizeSection {...sections} />
        <CountersSection {...sections} />
      </div>
      <div className="grid gap-4 xl:grid-cols-2">
        <MoversSection {...sections} />
        <ScoresSection {...sections} scoresAt={filters.scoresAt} onScoresAt={(scoresAt) => update({ scoresAt }, "replace")} />
      </div>
      <div className="grid gap-4 xl:grid-cols-2">
        <ChurnSection
          {...sections}
          grouping={filters.churn}
          includeTags={filters.allVersions}
          onGrouping={(churn) => update({ churn }, "replace")}
        />
        <ReviewSection {...sections} />
      </div>
      <LlmSection {...sections} />
    </div>
  );
}

function OutcomesSection({
  playbookId,
  result,
  time,
  titleSuffix,
  chartKey,
  filters,
  renderedAt,
  update,
}: SectionProps & { filters: EvolutionFilters; renderedAt: number; update: (patch: Partial<EvolutionFilters>) => void }) {
  const { bucket } = time;
  const series = useMemo(() => outcomeSeries(result), [result]);
  const markers = useMemo(() => versionMarkers(result.versions, series.rows, bucket), [result.versions, series.rows, bucket]);
  const tables = useMemo(
    () => [
      outcomeTable(series, `Outcomes${titleSuffix}`, (start, filter) =>
        bucketTracesHref(playbookId, bucket, start, { ...(filters.variant ? { variant: filters.variant } : {}), ...filter }),
      ),
      versionTable(result.versions, `Versions${titleSuffix}`, (version) =>
        historyHref(playbookId, { from: Math.max(1, version - 1), to: version }),
      ),
    ],
    [series, result.versions, titleSuffix, playbookId, bucket, filters.variant],
  );
  const state = coverage(result, series.ratedBuckets);
  const totals = result.totals;
  const decided = totals.success + totals.failure;

  return (
    <ChartCard
      title="Outcomes"
      description={
        <>
          Success rate = success ÷ (success + failure), with its Wilson 95 % band; unknown outcomes are counted in the bars, not in the
          rate.
          {state !== "empty"
            ? " Drag across the chart or the brush to zoom; click a bucket for its traces; a flag opens that version's diff."
            : ""}
        </>
      }
      tables={tables}
      time={time}
      resetKey={chartKey}
    >
      {state === "empty" ? (
        <NoTraces
          playbookName={result.playbook}
          // earliest is the first trace or version: before the range, "all time" may hold traces.
          hasEarlier={result.earliest !== null && Date.parse(result.earliest) < Date.parse(result.from)}
          renderedAt={renderedAt}
          onShowAll={() => update({ preset: "all", from: null, to: null })}
        />
      ) : (
        <>
          <dl className="mb-3 flex flex-wrap gap-x-6 gap-y-1 px-2 text-[13px]">
            <Figure term="Success rate">
              {formatRate(totals.successRate)} <span className="text-ink-faint">({formatInterval(totals.ci95)})</span>
            </Figure>
            <Figure term="Traces">{formatNumber(totals.traces)}</Figure>
            <Figure term="Success · failure · unknown">
              {formatNumber(totals.success)} · {formatNumber(totals.failure)} · {formatNumber(totals.unknown)}
            </Figure>
            <Figure term={result.contentOnly ? "Versions (content)" : "Versions"}>
              {formatNumber(result.versions.length + result.versionsOmitted)}
            </Figure>
          </dl>
          {state === "sparse" ? (
            <Notice tone="info" compact className="mx-2 mb-3" announce={false}>
              {decided < SPARSE_DECIDED
                ? `Only ${plural(decided, "decided outcome")} (success or failure) in this range: the 95 % bands are wide, so read small differences with care. More traces, or a wider range or bucket, narrow them.`
                : "Few buckets have a success or a failure to rate: choose a wider bucket or range to see a trend."}
            </Notice>
          ) : null}
          {result.versionsOmitted > 0 ? (
            <Notice tone="info" compact className="mx-2 mb-3" announce={false}>
              {plural(result.versionsOmitted, "older version")} of this range {result.versionsOmitted === 1 ? "is" : "are"} not marked: zoom
              in to see every marker.
            </Notice>
          ) : null}
          <OutcomesChart
            playbookId={playbookId}
            series={series}
            markers={markers}
            time={time}
            variantFilter={filters.variant}
            onZoom={(from, to) => update({ preset: null, from: new Date(from).toISOString(), to: new Date(to).toISOString() })}
          />
        </>
      )}
    </ChartCard>
  );
}

function Figure({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex items-baseline gap-2">
      <dt className="text-xs text-ink-faint">{term}</dt>
      <dd className="font-medium tabular-nums text-ink">{children}</dd>
    </div>
  );
}

/** Box for box the charts, while the first answer loads. */
export function EvolutionSkeleton() {
  return (
    <LoadingStatus label="Loading the charts…" className="flex flex-col gap-4">
      <Skeleton className="h-[420px] w-full rounded-card" />
      <div className="grid gap-4 xl:grid-cols-2">
        <Skeletons count={2} className="h-80 rounded-card" />
      </div>
    </LoadingStatus>
  );
}
