// Version markers on the bucketed charts, the words that say what a version changed, and the
// table of the versions in the range.
import { DELTA_OPERATION_TYPES } from "@/server/deltas/schemas";
import type { VersionPoint } from "@/server/metrics/schemas";
import { tableOf, type DataTableModel } from "../data-table";
import { OPERATION_LABELS, VERSION_ORIGIN_LABELS } from "@/components/shared/chart-palette";
import { bucketStart, type Bucket } from "../range";

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

function describeVersion(version: VersionPoint): string {
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
  const table = tableOf<VersionPoint>(
    title,
    [
      { key: "version", label: "Version", kind: "count" },
      { key: "createdAt", label: "Made", kind: "instant" },
      { key: "origin", label: "Origin", kind: "text", value: (version) => VERSION_ORIGIN_LABELS[version.origin] },
      { key: "operations", label: "Operations", kind: "text", value: describeOperations },
      { key: "activeBullets", label: "Active bullets", kind: "count" },
      { key: "helpful", label: "Helpful", kind: "count" },
      { key: "harmful", label: "Harmful", kind: "count" },
    ],
    versions,
  );
  return diffHref ? { ...table, links: versions.map((version) => ({ version: diffHref(version.version) })) } : table;
}
