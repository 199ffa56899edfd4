// The size chart's data: active bullets per section and tokens at the end of each bucket, against
// the playbook's token budget.
import type { MetricsResult } from "@/server/metrics/schemas";
import { BUCKET_START_COLUMN, tableOf, type ColumnOf, type DataTableModel } from "../data-table";
import { bucketEnd } from "../range";

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
  const sectionColumns = series.sections.map((section): ColumnOf<SizeRow> => ({
    key: `section:${section.key}`,
    label: section.name,
    kind: "count",
    value: (row) => (row.version === null ? null : (row.sections[section.key] ?? 0)),
  }));
  return tableOf<SizeRow>(
    title,
    [
      BUCKET_START_COLUMN,
      { key: "version", label: "Version", kind: "count" },
      { key: "activeBullets", label: "Active bullets", kind: "count" },
      ...sectionColumns,
      { key: "tokens", label: "Tokens", kind: "count" },
      { key: "tokenBudget", label: "Token budget", kind: "count", value: () => series.tokenBudget },
    ],
    series.rows,
  );
}
