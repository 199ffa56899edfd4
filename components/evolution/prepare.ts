// The Evolution charts' data, prepared: the metrics result turned into the rows each chart draws and
// the table ("Show data", CSV) that lists the same numbers. Pure and unit-tested; the components
// only draw what comes out of here.
import { DELTA_OPERATION_TYPES, DELTA_ORIGINS, type DeltaOperationType, type DeltaOrigin } from "@/server/deltas/schemas";
import {
  LLM_ROLES,
  VERSION_ORIGINS,
  type LlmRole,
  type MetricsResult,
  type Mover,
  type OverviewRow,
  type VersionOrigin,
  type VersionPoint,
} from "@/server/metrics/schemas";
import type { DataColumn, DataTableModel } from "./data-table";
import { OPERATION_LABELS, ROLE_LABELS, VERSION_ORIGIN_LABELS } from "./palette";
import { bucketEnd, bucketStart, type Bucket } from "./range";

type Interval = [number, number];

// ---- Outcomes ---------------------------------------------------------------------------------

export interface OutcomeCounts {
  traces: number;
  success: number;
  failure: number;
  unknown: number;
  /** success ÷ (success + failure); null when both are 0. */
  rate: number | null;
  /** Wilson 95 % interval of the rate. */
  band: Interval | null;
}

export interface OutcomeRow extends OutcomeCounts {
  /** Bucket start, ISO: the x value every chart shares (tooltips synchronise on it). */
  start: string;
  /** Per variant, when the chart shows a series per variant. */
  variants: Record<string, OutcomeCounts>;
}

export interface OutcomeSeries {
  rows: OutcomeRow[];
  /** Variants with a series of their own, sorted; empty when filtered to one variant or none exist. */
  variants: string[];
  /** Buckets with at least one success or failure (a rate to draw). */
  ratedBuckets: number;
}

function counts(
  bucket: Pick<MetricsResult["outcomes"][number], "traces" | "success" | "failure" | "unknown" | "successRate" | "ci95">,
): OutcomeCounts {
  return {
    traces: bucket.traces,
    success: bucket.success,
    failure: bucket.failure,
    unknown: bucket.unknown,
    rate: bucket.successRate,
    band: bucket.ci95,
  };
}

const EMPTY_COUNTS: OutcomeCounts = { traces: 0, success: 0, failure: 0, unknown: 0, rate: null, band: null };

/**
 * One row per bucket, with each variant's figures beside the total. Variants get series of their
 * own only when the reader has not filtered to one (then the total is that variant).
 */
export function outcomeSeries(result: Pick<MetricsResult, "outcomes" | "outcomesByVariant" | "variant">): OutcomeSeries {
  const byVariant = result.variant === null ? [...result.outcomesByVariant].sort((a, b) => a.variant.localeCompare(b.variant)) : [];
  const lookup = byVariant.map((series) => ({
    variant: series.variant,
    byStart: new Map(series.outcomes.map((bucket) => [Date.parse(bucket.start), bucket])),
  }));
  const rows = result.outcomes.map((bucket): OutcomeRow => {
    const time = Date.parse(bucket.start);
    const variants: Record<string, OutcomeCounts> = {};
    for (const series of lookup) {
      const match = series.byStart.get(time);
      variants[series.variant] = match ? counts(match) : EMPTY_COUNTS;
    }
    return { start: bucket.start, ...counts(bucket), variants };
  });
  return {
    rows,
    variants: byVariant.map((series) => series.variant),
    ratedBuckets: rows.filter((row) => row.success + row.failure > 0).length,
  };
}

/** Where a count of a bucket leads: the trace explorer filtered to the bucket, outcome and variant. */
export type BucketLink = (start: string, filter: { outcome?: "success" | "failure" | "unknown"; variant?: string }) => string;

export function outcomeTable(series: OutcomeSeries, title: string, link?: BucketLink): DataTableModel {
  const columns: DataColumn[] = [
    { key: "start", label: "Bucket start", kind: "bucket" },
    { key: "traces", label: "Traces", kind: "count" },
    { key: "success", label: "Success", kind: "count" },
    { key: "failure", label: "Failure", kind: "count" },
    { key: "unknown", label: "Unknown", kind: "count" },
    { key: "rate", label: "Success rate", kind: "rate" },
    { key: "low", label: "95 % low", kind: "rate" },
    { key: "high", label: "95 % high", kind: "rate" },
  ];
  for (const variant of series.variants) {
    columns.push(
      { key: `${variant}:traces`, label: `${variant}: traces`, kind: "count" },
      { key: `${variant}:success`, label: `${variant}: success`, kind: "count" },
      { key: `${variant}:failure`, label: `${variant}: failure`, kind: "count" },
      { key: `${variant}:rate`, label: `${variant}: success rate`, kind: "rate" },
      { key: `${variant}:low`, label: `${variant}: 95 % low`, kind: "rate" },
      { key: `${variant}:high`, label: `${variant}: 95 % high`, kind: "rate" },
    );
  }
  const rows = series.rows.map((row) => {
    const cells: DataTableModel["rows"][number] = {
      start: row.start,
      traces: row.traces,
      success: row.success,
      failure: row.failure,
      unknown: row.unknown,
      rate: row.rate,
      low: row.band?.[0] ?? null,
      high: row.band?.[1] ?? null,
    };
    for (const variant of series.variants) {
      const figures = row.variants[variant] ?? EMPTY_COUNTS;
      cells[`${variant}:traces`] = figures.traces;
      cells[`${variant}:success`] = figures.success;
      cells[`${variant}:failure`] = figures.failure;
      cells[`${variant}:rate`] = figures.rate;
      cells[`${variant}:low`] = figures.band?.[0] ?? null;
      cells[`${variant}:high`] = figures.band?.[1] ?? null;
    }
    return cells;
  });
  const links = link
    ? series.rows.map((row) => {
        const cells: Record<string, string> = {};
        const add = (key: string, count: number, filter: Parameters<BucketLink>[1]) => {
          if (count > 0) cells[key] = link(row.start, filter);
        };
        add("traces", row.traces, {});
        add("success", row.success, { outcome: "success" });
        add("failure", row.failure, { outcome: "failure" });
        add("unknown", row.unknown, { outcome: "unknown" });
        for (const variant of series.variants) {
          const figures = row.variants[variant] ?? EMPTY_COUNTS;
          add(`${variant}:traces`, figures.traces, { variant });
          add(`${variant}:success`, figures.success, { variant, outcome: "success" });
          add(`${variant}:failure`, figures.failure, { variant, outcome: "failure" });
        }
        return cells;
      })
    : undefined;
  return { title, columns, rows, ...(links ? { links } : {}) };
}

// ---- Version markers --------------------------------------------------------------------------

export interface VersionMarker {
  /** The bucket (a row's start) the versions fall in. */
  start: string;
  versions: VersionPoint[];
  /** The diff to open: from the version before the first to the last. */
  compare: { from: number; to: number };
  /** "v12" or "v12–v14 (3 versions)". */
  label: string;
  /** One line per version: "v12 · Curator run · 2 add, 1 update". */
  details: string[];
}

/** "2 add · 1 update", or "counters only" / "no operations". */
export function describeOperations(version: Pick<VersionPoint, "operations" | "contentChanged" | "countersChanged">): string {
  const parts = DELTA_OPERATION_TYPES.filter((type) => (version.operations[type] ?? 0) > 0).map(
    (type) => `${version.operations[type]} ${OPERATION_LABELS[type].toLowerCase()}`,
  );
  if (parts.length > 0) return parts.join(" · ");
  if (version.countersChanged && !version.contentChanged) return "counters only";
  return "settings or no operations";
}

export function describeVersion(version: VersionPoint): string {
  return `v${version.version} · ${VERSION_ORIGIN_LABELS[version.origin]} · ${describeOperations(version)}`;
}

/**
 * Versions grouped by the bucket they were made in, placed on that bucket's row (a marker per
 * bucket, however many versions it holds). Versions outside every row are left out.
 */
export function versionMarkers(versions: readonly VersionPoint[], rows: readonly { start: string }[], bucket: Bucket): VersionMarker[] {
  const rowByTime = new Map(rows.map((row) => [Date.parse(row.start), row.start]));
  const groups = new Map<string, VersionPoint[]>();
  for (const version of [...versions].sort((a, b) => a.version - b.version)) {
    const start = rowByTime.get(bucketStart(Date.parse(version.createdAt), bucket));
    if (start === undefined) continue;
    const group = groups.get(start);
    if (group) group.push(version);
    else groups.set(start, [version]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => Date.parse(a) - Date.parse(b))
    .map(([start, group]) => {
      const first = group[0]!.version;
      const last = group.at(-1)!.version;
      return {
        start,
        versions: group,
        compare: { from: Math.max(1, first - 1), to: last },
        label: group.length === 1 ? `v${first}` : `v${first}–v${last} (${group.length} versions)`,
        details: group.map(describeVersion),
      };
    });
}

export function versionTable(versions: readonly VersionPoint[], title: string, diffHref?: (version: number) => string): DataTableModel {
  return {
    ...(diffHref ? { links: versions.map((version) => ({ version: diffHref(version.version) })) } : {}),
    title,
    columns: [
      { key: "version", label: "Version", kind: "count" },
      { key: "createdAt", label: "Made", kind: "instant" },
      { key: "origin", label: "Origin", kind: "text" },
      { key: "operations", label: "Operations", kind: "text" },
      { key: "activeBullets", label: "Active bullets", kind: "count" },
      { key: "helpful", label: "Helpful", kind: "count" },
      { key: "harmful", label: "Harmful", kind: "count" },
    ],
    rows: versions.map((version) => ({
      version: version.version,
      createdAt: version.createdAt,
      origin: VERSION_ORIGIN_LABELS[version.origin],
      operations: describeOperations(version),
      activeBullets: version.activeBullets,
      helpful: version.helpful,
      harmful: version.harmful,
    })),
  };
}

// ---- Size --------------------------------------------------------------------------------------

/** Sections drawn as their own band; smaller ones are summed into "Other sections". */
export const MAX_SECTION_SERIES = 8;
export const OTHER_SECTIONS = "__other__";

export interface SizeRow {
  start: string;
  /** The version in force at the end of the bucket; null before the first. */
  version: number | null;
  activeBullets: number | null;
  tokens: number | null;
  /** Active bullets per drawn section (and OTHER_SECTIONS). */
  sections: Record<string, number>;
}

export interface SizeSeries {
  rows: SizeRow[];
  /** The drawn sections, largest last version first; OTHER_SECTIONS last when some are folded. */
  sections: { key: string; name: string }[];
  tokenBudget: number;
}

/**
 * The playbook's size at the end of each bucket: the last version made before the bucket ends
 * (the version before the range carries into the first buckets). A level, not a sum, so a
 * bucket without versions shows the size it had.
 */
export function sizeSeries(
  result: Pick<MetricsResult, "versions" | "previousVersion" | "tokenBudget" | "bucket">,
  rows: readonly { start: string }[],
): SizeSeries {
  const versions = [...(result.previousVersion ? [result.previousVersion] : []), ...result.versions].sort((a, b) => a.version - b.version);
  const latest = versions.at(-1);
  // Which sections get a band: the largest at the last version, then any seen earlier, by size.
  const peak = new Map<string, { name: string; size: number; last: number }>();
  for (const version of versions) {
    for (const section of version.sections) {
      const seen = peak.get(section.id);
      peak.set(section.id, { name: section.name, size: Math.max(seen?.size ?? 0, section.activeBullets), last: section.activeBullets });
    }
  }
  const latestIds = new Set(latest?.sections.map((section) => section.id));
  const ranked = [...peak.entries()].sort(([idA, a], [idB, b]) => {
    const live = Number(latestIds.has(idB)) - Number(latestIds.has(idA));
    return live !== 0 ? live : b.last - a.last || b.size - a.size || a.name.localeCompare(b.name);
  });
  const shown = ranked.slice(0, ranked.length > MAX_SECTION_SERIES ? MAX_SECTION_SERIES - 1 : MAX_SECTION_SERIES);
  const shownIds = new Set(shown.map(([id]) => id));
  const folded = ranked.length > shown.length;
  const sections = [
    ...shown.map(([id, figures]) => ({ key: id, name: figures.name })),
    ...(folded ? [{ key: OTHER_SECTIONS, name: `Other sections (${ranked.length - shown.length})` }] : []),
  ];

  let index = -1;
  const sizeRows = rows.map((row): SizeRow => {
    const end = bucketEnd(Date.parse(row.start), result.bucket);
    while (index + 1 < versions.length && Date.parse(versions[index + 1]!.createdAt) < end) index += 1;
    const version = index >= 0 ? versions[index]! : null;
    const bySection: Record<string, number> = {};
    if (version) {
      for (const { key } of sections) bySection[key] = 0;
      for (const section of version.sections) {
        const key = shownIds.has(section.id) ? section.id : OTHER_SECTIONS;
        bySection[key] = (bySection[key] ?? 0) + section.activeBullets;
      }
    }
    return {
      start: row.start,
      version: version?.version ?? null,
      activeBullets: version?.activeBullets ?? null,
      tokens: version?.tokens ?? null,
      sections: bySection,
    };
  });
  return { rows: sizeRows, sections, tokenBudget: result.tokenBudget };
}

export function sizeTable(series: SizeSeries, title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "start", label: "Bucket start", kind: "bucket" },
      { key: "version", label: "Version", kind: "count" },
      { key: "activeBullets", label: "Active bullets", kind: "count" },
      ...series.sections.map((section): DataColumn => ({ key: `section:${section.key}`, label: section.name, kind: "count" })),
      { key: "tokens", label: "Tokens", kind: "count" },
      { key: "tokenBudget", label: "Token budget", kind: "count" },
    ],
    rows: series.rows.map((row) => ({
      start: row.start,
      version: row.version,
      activeBullets: row.activeBullets,
      ...Object.fromEntries(
        series.sections.map((section) => [`section:${section.key}`, row.version === null ? null : (row.sections[section.key] ?? 0)]),
      ),
      tokens: row.tokens,
      tokenBudget: series.tokenBudget,
    })),
  };
}

// ---- Counters ----------------------------------------------------------------------------------

export interface CounterRow {
  start: string;
  version: number | null;
  helpful: number | null;
  harmful: number | null;
  neutral: number | null;
  /** helpful − harmful. */
  score: number | null;
}

export function counterRows(result: Pick<MetricsResult, "counters">): CounterRow[] {
  return result.counters.map((bucket) => ({
    start: bucket.start,
    version: bucket.version,
    helpful: bucket.helpful,
    harmful: bucket.harmful,
    neutral: bucket.neutral,
    score: bucket.helpful === null || bucket.harmful === null ? null : bucket.helpful - bucket.harmful,
  }));
}

export function counterTable(rows: readonly CounterRow[], title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "start", label: "Bucket start", kind: "bucket" },
      { key: "version", label: "Version", kind: "count" },
      { key: "helpful", label: "Helpful", kind: "count" },
      { key: "harmful", label: "Harmful", kind: "count" },
      { key: "neutral", label: "Neutral", kind: "count" },
      { key: "score", label: "Helpful − harmful", kind: "count" },
    ],
    rows: rows.map((row) => ({ ...row })),
  };
}

/**
 * Top movers, most first: bullets whose helpful − harmful rose (or fell) most in the range. Ties
 * go to the larger number of tags, then the bullet id, so the order never flickers between loads.
 */
export function topMovers(movers: MetricsResult["movers"]): { rose: Mover[]; fell: Mover[] } {
  const tags = (mover: Mover) => mover.helpfulChange + mover.harmfulChange;
  return {
    rose: movers.rose
      .filter((mover) => mover.scoreChange > 0)
      .sort((a, b) => b.scoreChange - a.scoreChange || tags(b) - tags(a) || a.bulletId.localeCompare(b.bulletId)),
    fell: movers.fell
      .filter((mover) => mover.scoreChange < 0)
      .sort((a, b) => a.scoreChange - b.scoreChange || tags(b) - tags(a) || a.bulletId.localeCompare(b.bulletId)),
  };
}

export function moverTable(movers: { rose: Mover[]; fell: Mover[] }, title: string): DataTableModel {
  const row = (direction: string) => (mover: Mover) => ({
    direction,
    bulletId: mover.bulletId,
    section: mover.section,
    content: mover.content,
    scoreChange: mover.scoreChange,
    helpfulChange: mover.helpfulChange,
    harmfulChange: mover.harmfulChange,
    helpful: mover.helpful,
    harmful: mover.harmful,
  });
  return {
    title,
    columns: [
      { key: "direction", label: "Direction", kind: "text" },
      { key: "bulletId", label: "Bullet", kind: "text" },
      { key: "section", label: "Section", kind: "text" },
      { key: "content", label: "Content", kind: "text" },
      { key: "scoreChange", label: "Score change", kind: "count" },
      { key: "helpfulChange", label: "Helpful tags", kind: "count" },
      { key: "harmfulChange", label: "Harmful tags", kind: "count" },
      { key: "helpful", label: "Helpful now", kind: "count" },
      { key: "harmful", label: "Harmful now", kind: "count" },
    ],
    rows: [...movers.rose.map(row("rose")), ...movers.fell.map(row("fell"))],
  };
}

export interface ScoreBin {
  /** "3", or "−4 to 0" for a bin of several scores. */
  label: string;
  from: number;
  to: number;
  bullets: number;
}

/** Bars the score histogram draws at most; wider spreads are binned. */
export const MAX_SCORE_BARS = 40;

/**
 * The score distribution as histogram bars: one per score from the lowest to the highest (gaps
 * included, so the shape is honest), or equal-width bins when the spread needs more than maxBars.
 */
export function scoreBins(distribution: readonly (readonly [number, number])[], maxBars = MAX_SCORE_BARS): ScoreBin[] {
  if (distribution.length === 0) return [];
  const scores = distribution.map(([score]) => score);
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  const width = Math.max(1, Math.ceil((max - min + 1) / maxBars));
  const bins: ScoreBin[] = [];
  for (let from = min; from <= max; from += width) {
    const to = Math.min(from + width - 1, max);
    bins.push({ label: from === to ? signed(from) : `${signed(from)} to ${signed(to)}`, from, to, bullets: 0 });
  }
  for (const [score, bullets] of distribution) bins[Math.floor((score - min) / width)]!.bullets += bullets;
  return bins;
}

function signed(score: number): string {
  return score < 0 ? `−${Math.abs(score)}` : String(score);
}

export function scoreTable(bins: readonly ScoreBin[], version: number, title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "version", label: "Version", kind: "count" },
      { key: "from", label: "Score from", kind: "count" },
      { key: "to", label: "Score to", kind: "count" },
      { key: "bullets", label: "Bullets", kind: "count" },
    ],
    rows: bins.map((bin) => ({ version, from: bin.from, to: bin.to, bullets: bin.bullets })),
  };
}

// ---- Churn -------------------------------------------------------------------------------------

export type ChurnKey = DeltaOperationType | VersionOrigin;

export interface ChurnSeries {
  rows: { start: string; values: Partial<Record<ChurnKey, number>>; total: number }[];
  /** The stacked series, in a fixed order; only those with operations in the range. */
  keys: ChurnKey[];
}

/**
 * Operations per bucket, stacked by type or by origin. Counter tags (one per reflection) are left
 * out unless every version is shown, as the version markers are.
 */
export function churnSeries(result: Pick<MetricsResult, "churn">, grouping: "type" | "origin", includeTags: boolean): ChurnSeries {
  const counted = (operations: Partial<Record<DeltaOperationType, number>>) =>
    DELTA_OPERATION_TYPES.filter((type) => includeTags || type !== "tag").reduce((sum, type) => sum + (operations[type] ?? 0), 0);
  const rows = result.churn.map((bucket) => {
    const values: Partial<Record<ChurnKey, number>> = {};
    if (grouping === "type") {
      for (const type of DELTA_OPERATION_TYPES) {
        if (!includeTags && type === "tag") continue;
        const value = bucket.operations[type] ?? 0;
        if (value > 0) values[type] = value;
      }
    } else {
      for (const origin of VERSION_ORIGINS) {
        const operations = bucket.byOrigin[origin];
        const value = operations ? counted(operations) : 0;
        if (value > 0) values[origin] = value;
      }
    }
    return { start: bucket.start, values, total: Object.values(values).reduce((sum, value) => sum + value, 0) };
  });
  const order: readonly ChurnKey[] = grouping === "type" ? DELTA_OPERATION_TYPES : VERSION_ORIGINS;
  const keys = order.filter((key) => rows.some((row) => (row.values[key] ?? 0) > 0));
  return { rows, keys };
}

export function churnLabel(key: ChurnKey): string {
  return (DELTA_OPERATION_TYPES as readonly string[]).includes(key)
    ? OPERATION_LABELS[key as DeltaOperationType]
    : VERSION_ORIGIN_LABELS[key as VersionOrigin];
}

export function churnTable(series: ChurnSeries, title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "start", label: "Bucket start", kind: "bucket" },
      ...series.keys.map((key): DataColumn => ({ key, label: churnLabel(key), kind: "count" })),
      { key: "total", label: "Total", kind: "count" },
    ],
    rows: series.rows.map((row) => ({
      start: row.start,
      ...Object.fromEntries(series.keys.map((key) => [key, row.values[key] ?? 0])),
      total: row.total,
    })),
  };
}

// ---- Review ------------------------------------------------------------------------------------

export interface ReviewRow {
  start: string;
  proposed: Partial<Record<DeltaOrigin, number>>;
  approved: number;
  autoApplied: number;
  rejected: number;
  nearDuplicates: number;
}

export interface ReviewSeries {
  rows: ReviewRow[];
  /** Origins with a delta in the range, in the API's order of origins. */
  origins: DeltaOrigin[];
}

export function reviewSeries(result: Pick<MetricsResult, "review" | "outcomes">): ReviewSeries {
  const byStart = new Map<number, ReviewRow>(
    result.outcomes.map((bucket) => [
      Date.parse(bucket.start),
      { start: bucket.start, proposed: {}, approved: 0, autoApplied: 0, rejected: 0, nearDuplicates: 0 },
    ]),
  );
  const seen = new Set<DeltaOrigin>();
  for (const bucket of result.review.buckets) {
    const row = byStart.get(Date.parse(bucket.start));
    if (!row) continue;
    if (bucket.proposed > 0) seen.add(bucket.origin);
    row.proposed[bucket.origin] = (row.proposed[bucket.origin] ?? 0) + bucket.proposed;
    row.approved += bucket.approved;
    row.autoApplied += bucket.autoApplied;
    row.rejected += bucket.rejected;
    row.nearDuplicates += bucket.nearDuplicates;
  }
  const origins = DELTA_ORIGINS.filter((origin) => seen.has(origin));
  return { rows: [...byStart.values()], origins };
}

export function reviewTable(series: ReviewSeries, title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "start", label: "Bucket start", kind: "bucket" },
      ...series.origins.map((origin): DataColumn => ({
        key: `proposed:${origin}`,
        label: `Proposed: ${VERSION_ORIGIN_LABELS[origin]}`,
        kind: "count",
      })),
      { key: "approved", label: "Approved", kind: "count" },
      { key: "autoApplied", label: "Auto-applied", kind: "count" },
      { key: "rejected", label: "Rejected", kind: "count" },
      { key: "nearDuplicates", label: "Near-duplicates caught", kind: "count" },
    ],
    rows: series.rows.map((row) => ({
      start: row.start,
      ...Object.fromEntries(series.origins.map((origin) => [`proposed:${origin}`, row.proposed[origin] ?? 0])),
      approved: row.approved,
      autoApplied: row.autoApplied,
      rejected: row.rejected,
      nearDuplicates: row.nearDuplicates,
    })),
  };
}

export function reviewTotalsTable(result: Pick<MetricsResult, "review">, title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "origin", label: "Origin", kind: "text" },
      { key: "proposed", label: "Proposed", kind: "count" },
      { key: "approved", label: "Approved", kind: "count" },
      { key: "autoApplied", label: "Auto-applied", kind: "count" },
      { key: "rejected", label: "Rejected", kind: "count" },
      { key: "pending", label: "Pending", kind: "count" },
      { key: "acceptanceRate", label: "Acceptance rate", kind: "rate" },
      { key: "low", label: "95 % low", kind: "rate" },
      { key: "high", label: "95 % high", kind: "rate" },
      { key: "medianDecisionMs", label: "Median time to decision", kind: "ms" },
      { key: "p90DecisionMs", label: "p90 time to decision", kind: "ms" },
      { key: "nearDuplicates", label: "Near-duplicates caught", kind: "count" },
      { key: "autoAppliedShare", label: "Share auto-applied", kind: "rate" },
    ],
    rows: result.review.byOrigin
      .filter((totals) => totals.proposed > 0)
      .map((totals) => ({
        origin: VERSION_ORIGIN_LABELS[totals.origin],
        proposed: totals.proposed,
        approved: totals.approved,
        autoApplied: totals.autoApplied,
        rejected: totals.rejected,
        pending: totals.pending,
        acceptanceRate: totals.acceptanceRate,
        low: totals.ci95?.[0] ?? null,
        high: totals.ci95?.[1] ?? null,
        medianDecisionMs: totals.medianDecisionMs,
        p90DecisionMs: totals.p90DecisionMs,
        nearDuplicates: totals.nearDuplicates,
        autoAppliedShare: totals.autoAppliedShare,
      })),
  };
}

// ---- LLM cost ----------------------------------------------------------------------------------

export interface LlmRow {
  start: string;
  /** Input + output tokens per role. */
  tokens: Record<LlmRole, number>;
  costUsd: Record<LlmRole, number>;
  runs: Record<LlmRole, number>;
}

const zeroRoles = (): Record<LlmRole, number> => ({ reflector: 0, curator: 0, agent: 0 });

export function llmRows(result: Pick<MetricsResult, "llm" | "outcomes">): LlmRow[] {
  const byStart = new Map<number, LlmRow>(
    result.outcomes.map((bucket) => [
      Date.parse(bucket.start),
      { start: bucket.start, tokens: zeroRoles(), costUsd: zeroRoles(), runs: zeroRoles() },
    ]),
  );
  for (const bucket of result.llm.buckets) {
    const row = byStart.get(Date.parse(bucket.start));
    if (!row) continue;
    row.tokens[bucket.role] += bucket.inputTokens + bucket.outputTokens;
    row.costUsd[bucket.role] += bucket.costUsd;
    row.runs[bucket.role] += bucket.runs;
  }
  return [...byStart.values()];
}

export function llmTable(rows: readonly LlmRow[], title: string): DataTableModel {
  const columns: DataColumn[] = [{ key: "start", label: "Bucket start", kind: "bucket" }];
  for (const role of LLM_ROLES) {
    columns.push(
      { key: `${role}:runs`, label: `${ROLE_LABELS[role]}: ${role === "agent" ? "traces" : "runs"}`, kind: "count" },
      { key: `${role}:tokens`, label: `${ROLE_LABELS[role]}: tokens`, kind: "count" },
      { key: `${role}:cost`, label: `${ROLE_LABELS[role]}: cost (USD)`, kind: "usd" },
    );
  }
  return {
    title,
    columns,
    rows: rows.map((row) => ({
      start: row.start,
      ...Object.fromEntries(
        LLM_ROLES.flatMap((role) => [
          [`${role}:runs`, row.runs[role]],
          [`${role}:tokens`, row.tokens[role]],
          [`${role}:cost`, row.costUsd[role]],
        ]),
      ),
    })),
  };
}

export function llmTotalsTable(result: Pick<MetricsResult, "llm">, title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "role", label: "Role", kind: "text" },
      { key: "runs", label: "Runs or traces", kind: "count" },
      { key: "failed", label: "Failed", kind: "count" },
      { key: "retried", label: "Retried", kind: "count" },
      { key: "inputTokens", label: "Input tokens", kind: "count" },
      { key: "outputTokens", label: "Output tokens", kind: "count" },
      { key: "costUsd", label: "Cost (USD)", kind: "usd" },
      { key: "uncosted", label: "Without a cost", kind: "count" },
      { key: "p50LatencyMs", label: "Latency p50", kind: "ms" },
      { key: "p95LatencyMs", label: "Latency p95", kind: "ms" },
    ],
    rows: LLM_ROLES.map((role) => {
      const totals = result.llm.byRole.find((entry) => entry.role === role);
      return {
        role: ROLE_LABELS[role],
        runs: totals?.runs ?? 0,
        failed: totals?.failed ?? null,
        retried: totals?.retried ?? null,
        inputTokens: totals?.inputTokens ?? 0,
        outputTokens: totals?.outputTokens ?? 0,
        costUsd: totals?.costUsd ?? 0,
        uncosted: totals?.uncosted ?? 0,
        p50LatencyMs: totals?.p50LatencyMs ?? null,
        p95LatencyMs: totals?.p95LatencyMs ?? null,
      };
    }),
  };
}

// ---- Empty and sparse --------------------------------------------------------------------------

/** Decided outcomes (success + failure) below which a rate's interval is too wide to read much into. */
export const SPARSE_DECIDED = 30;

export type Coverage = "empty" | "sparse" | "enough";

/** empty: no trace in the range; sparse: too few decided outcomes, or rates in fewer than 3 buckets. */
export function coverage(result: Pick<MetricsResult, "totals">, ratedBuckets: number): Coverage {
  if (result.totals.traces === 0) return "empty";
  if (result.totals.success + result.totals.failure < SPARSE_DECIDED || ratedBuckets < 3) return "sparse";
  return "enough";
}

// ---- Studio overview ---------------------------------------------------------------------------

export const OVERVIEW_SORTS = ["name", "successRate", "change", "traces", "pendingDeltas"] as const;
export type OverviewSort = (typeof OVERVIEW_SORTS)[number];
export type SortDirection = "asc" | "desc";

/**
 * Rows in the chosen order. Missing values (no rate, no change) go last whichever the direction,
 * and the name breaks ties, so the table reads the same on every load.
 */
export function sortOverview(rows: readonly OverviewRow[], sort: OverviewSort, direction: SortDirection): OverviewRow[] {
  const sign = direction === "asc" ? 1 : -1;
  const byName = (a: OverviewRow, b: OverviewRow) =>
    a.name.localeCompare(b.name, "en", { sensitivity: "base" }) || a.playbookId.localeCompare(b.playbookId);
  return [...rows].sort((a, b) => {
    if (sort === "name") return sign * byName(a, b);
    const x = a[sort];
    const y = b[sort];
    if (x === null && y === null) return byName(a, b);
    if (x === null) return 1;
    if (y === null) return -1;
    return sign * (x - y) || byName(a, b);
  });
}

export function overviewTable(rows: readonly OverviewRow[], title: string): DataTableModel {
  return {
    title,
    columns: [
      { key: "name", label: "Playbook", kind: "text" },
      { key: "successRate", label: "Success rate", kind: "rate" },
      { key: "previousSuccessRate", label: "Previous range", kind: "rate" },
      { key: "change", label: "Change", kind: "rate" },
      { key: "traces", label: "Traces", kind: "count" },
      { key: "previousTraces", label: "Traces, previous range", kind: "count" },
      { key: "pendingDeltas", label: "Pending deltas", kind: "count" },
    ],
    rows: rows.map((row) => ({
      name: row.name,
      successRate: row.successRate,
      previousSuccessRate: row.previousSuccessRate,
      change: row.change,
      traces: row.traces,
      previousTraces: row.previousTraces,
      pendingDeltas: row.pendingDeltas,
    })),
  };
}

export interface Sparkline {
  /** An SVG path: one segment per run of buckets with a rate (a bucket without one breaks the line). */
  path: string;
  /** Buckets with a rate but no neighbour with one: drawn as dots, or they would not show. */
  dots: { x: number; y: number }[];
  /** The last rate, for the end dot. */
  last: { x: number; y: number } | null;
}

/** The success rate per bucket as a small line, 0 % at the bottom and 100 % at the top. */
export function sparkline(series: readonly { successRate: number | null }[], width: number, height: number, inset = 2): Sparkline {
  const n = series.length;
  const x = (index: number) => (n <= 1 ? width / 2 : inset + (index * (width - 2 * inset)) / (n - 1));
  const y = (rate: number) => inset + (1 - rate) * (height - 2 * inset);
  const round = (value: number) => Math.round(value * 10) / 10;
  let path = "";
  const dots: { x: number; y: number }[] = [];
  let last: Sparkline["last"] = null;
  series.forEach((point, index) => {
    if (point.successRate === null) return;
    const here = { x: round(x(index)), y: round(y(point.successRate)) };
    const previous = series[index - 1]?.successRate ?? null;
    const next = series[index + 1]?.successRate ?? null;
    if (previous === null && next === null) dots.push(here);
    else path += `${previous === null ? "M" : "L"}${here.x},${here.y}`;
    last = here;
  });
  return { path, dots, last };
}
