"use client";
// Counters: helpful and harmful totals over time, the bullets that moved most in the range, and the
// distribution of bullet scores (helpful − harmful) at a chosen version.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ArrowDownRight, ArrowUpRight } from "lucide-react";
import Link from "next/link";
import { useMemo } from "react";
import { Bar, BarChart, CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import { useTRPC } from "@/components/trpc/client";
import { formatNumber } from "@/components/ui/format";
import { bulletHref } from "@/components/ui/routes";
import { Select } from "@/components/ui/select";
import type { Mover } from "@/server/metrics/schemas";
import { ChartEmpty } from "@/components/ui/chart";
import { ChartCard } from "./chart-card";
import { bucketTooltip, CHART_MARGIN, TimeChart, VALUE_AXIS, versionLines, type SectionProps } from "./chart-parts";
import { compactTick } from "./format";
import { CHART_COLORS } from "@/components/shared/chart-palette";
import { counterRows, counterTable, moverTable, topMovers, type CounterRow } from "./prepare/counters";
import { scoreBins, scoreTable, type ScoreBin } from "./prepare/scores";
import { WhenVisible } from "@/components/ui/when-visible";

export function CountersSection({ result, time, titleSuffix, chartKey }: SectionProps) {
  const rows = useMemo(() => counterRows(result), [result]);
  const table = useMemo(() => counterTable(rows, `Counters${titleSuffix}`), [rows, titleSuffix]);
  const known = rows.some((row) => row.version !== null);
  const series = [
    { key: "helpful", label: "Helpful", color: CHART_COLORS.helpful },
    { key: "harmful", label: "Harmful", color: CHART_COLORS.harmful },
  ] as const;
  return (
    <ChartCard
      title="Counters"
      description="Helpful and harmful totals over the active bullets at the end of each bucket, every reflection included."
      tables={[table]}
      time={time}
      resetKey={chartKey}
    >
      {known ? (
        <TimeChart
          chart={LineChart}
          rows={rows}
          height={240}
          time={time}
          legend={series.map((entry) => ({ label: entry.label, color: entry.color }))}
        >
          <YAxis allowDecimals={false} tickFormatter={compactTick} {...VALUE_AXIS} />
          {series.map((entry) => (
            <Line
              key={entry.key}
              type="stepAfter"
              dataKey={entry.key}
              name={entry.label}
              stroke={entry.color}
              strokeWidth={2}
              dot={false}
              isAnimationActive={false}
            />
          ))}
          <Tooltip
            isAnimationActive={false}
            content={bucketTooltip<CounterRow>({
              time,
              lines: (row) =>
                versionLines(row.version, () => [
                  { label: "Helpful", value: formatNumber(row.helpful ?? 0), color: CHART_COLORS.helpful },
                  { label: "Harmful", value: formatNumber(row.harmful ?? 0), color: CHART_COLORS.harmful },
                  { label: "Helpful − harmful", value: formatNumber(row.score ?? 0) },
                ]),
            })}
          />
        </TimeChart>
      ) : (
        <ChartEmpty title="No counters yet">
          Counters move when the reflector tags the bullets a trace cited (helpful on success, harmful on failure). Post traces that cite
          bullet ids, like [str-00001], and the totals show here.
        </ChartEmpty>
      )}
    </ChartCard>
  );
}

export function MoversSection({ playbookId, result, time, titleSuffix }: SectionProps) {
  const movers = useMemo(() => topMovers(result.movers), [result.movers]);
  const table = useMemo(() => moverTable(movers, `Top movers${titleSuffix}`), [movers, titleSuffix]);
  const empty = movers.rose.length === 0 && movers.fell.length === 0;
  return (
    <ChartCard
      title="Top movers"
      description="Bullets whose helpful − harmful rose or fell most from tags in this range."
      tables={[table]}
      time={time}
    >
      {empty ? (
        <ChartEmpty title="No bullet was tagged in this range">
          The reflector tags the bullets each trace cited; the bullets that gained or lost most then show here, with links to their sheets.
        </ChartEmpty>
      ) : (
        <div className="grid gap-4 px-2 sm:grid-cols-2">
          <MoverList title="Rose most" movers={movers.rose} playbookId={playbookId} direction="up" />
          <MoverList title="Fell most" movers={movers.fell} playbookId={playbookId} direction="down" />
        </div>
      )}
    </ChartCard>
  );
}

function MoverList({
  title,
  movers,
  playbookId,
  direction,
}: {
  title: string;
  movers: Mover[];
  playbookId: string;
  direction: "up" | "down";
}) {
  const Icon = direction === "up" ? ArrowUpRight : ArrowDownRight;
  return (
    <div className="min-w-0">
      <h3 className="mb-1.5 text-xs font-medium text-ink-faint">{title}</h3>
      {movers.length === 0 ? (
        <p className="text-xs text-ink-faint">None in this range.</p>
      ) : (
        <ol className="flex flex-col divide-y divide-line" aria-label={title}>
          {movers.map((mover) => (
            <li key={mover.bulletId} className="flex items-start gap-2 py-1.5">
              <span
                className={`mt-0.5 inline-flex shrink-0 items-center gap-0.5 text-xs font-medium tabular-nums ${direction === "up" ? "text-emerald-700" : "text-rose-700"}`}
              >
                <Icon aria-hidden className="size-3.5" />
                {mover.scoreChange > 0 ? `+${mover.scoreChange}` : `−${Math.abs(mover.scoreChange)}`}
              </span>
              <div className="min-w-0 flex-1">
                <Link href={bulletHref(playbookId, mover.bulletId)} className="font-mono text-xs text-accent-ink hover:underline">
                  [{mover.bulletId}]
                </Link>
                {mover.status === "archived" ? <span className="ml-1.5 text-xs text-ink-faint">archived</span> : null}
                <p className="line-clamp-2 text-xs text-ink-muted">{mover.content ?? "This bullet no longer exists."}</p>
                <p className="text-[11px] tabular-nums text-ink-faint">
                  +{mover.helpfulChange} helpful · +{mover.harmfulChange} harmful in range
                </p>
              </div>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function ScoresSection({
  playbookId,
  result,
  time,
  titleSuffix,
  scoresAt,
  onScoresAt,
}: SectionProps & { scoresAt: number | null; onScoresAt: (version: number | null) => void }) {
  const trpc = useTRPC();
  const latest = result.scores?.version ?? null;
  const wanted = scoresAt !== null && scoresAt !== latest ? scoresAt : null;
  const other = useQuery({
    ...trpc.metrics.versionFigures.queryOptions({ playbookId, version: wanted ?? 1 }),
    enabled: wanted !== null,
    placeholderData: keepPreviousData,
  });
  const shown = useMemo(
    () => (wanted === null ? result.scores : other.data ? { version: other.data.version, distribution: other.data.scores } : null),
    [wanted, result.scores, other.data],
  );
  const bins = useMemo(() => scoreBins(shown?.distribution ?? []), [shown]);
  const table = useMemo(() => scoreTable(bins, shown?.version ?? 0, `Score distribution${titleSuffix}`), [bins, shown, titleSuffix]);
  // The versions one can pick: those of the range (newest first) and the one in force before it.
  const choices = useMemo(() => {
    const numbers = new Set<number>([
      ...result.versions.map((version) => version.version),
      ...(result.previousVersion ? [result.previousVersion.version] : []),
    ]);
    if (latest !== null) numbers.add(latest);
    if (scoresAt !== null) numbers.add(scoresAt);
    return [...numbers].sort((a, b) => b - a).slice(0, 200);
  }, [result.versions, result.previousVersion, latest, scoresAt]);

  return (
    <ChartCard
      title="Score distribution"
      description="Active bullets with counters by helpful − harmful, at one version."
      tables={[table]}
      time={time}
      controls={
        choices.length > 0 ? (
          <Select<string>
            label="Version of the score distribution"
            prefix="At"
            className="h-8 w-36 text-[13px]"
            value={String(shown?.version ?? scoresAt ?? latest ?? choices[0])}
            onValueChange={(value) => onScoresAt(Number(value) === latest ? null : Number(value))}
            options={choices.map((version) => ({
              value: String(version),
              label: version === latest ? `v${version} (latest)` : `v${version}`,
            }))}
          />
        ) : null
      }
    >
      {other.isError && wanted !== null ? (
        <ChartEmpty title={`Version ${wanted} has no stored figures`}>{other.error.message}</ChartEmpty>
      ) : bins.length === 0 ? (
        <ChartEmpty title="No bullet with counters at this version">
          Scores come from the helpful and harmful counters the reflector keeps; bullets without counters (imported from plain ACE text) are
          not counted.
        </ChartEmpty>
      ) : (
        <WhenVisible height={220}>
          <BarChart data={bins} responsive style={{ width: "100%", height: 220 }} margin={CHART_MARGIN}>
            <CartesianGrid vertical={false} stroke={CHART_COLORS.grid} />
            <XAxis dataKey="label" tick={{ fontSize: 11, fill: CHART_COLORS.axis }} tickLine={false} minTickGap={8} />
            <YAxis allowDecimals={false} tickFormatter={compactTick} {...VALUE_AXIS} />
            <Bar dataKey="bullets" name="Bullets" fill={CHART_COLORS.score} isAnimationActive={false} />
            <Tooltip
              isAnimationActive={false}
              cursor={{ fill: "#f2f2f5" }}
              content={(props) => {
                const bin = props.payload?.[0]?.payload as ScoreBin | undefined;
                if (!props.active || !bin) return null;
                return (
                  <div className="rounded-lg border border-line bg-surface px-3 py-2 text-xs shadow-pop">
                    <p className="font-medium text-ink">Score {bin.label}</p>
                    <p className="text-ink-muted">
                      {formatNumber(bin.bullets)} {bin.bullets === 1 ? "bullet" : "bullets"} at v{shown?.version}
                    </p>
                  </div>
                );
              }}
            />
          </BarChart>
        </WhenVisible>
      )}
    </ChartCard>
  );
}
