// The studio overview's range and order in the URL of the playbooks index (?range=7d&sort=change&dir=asc).
import { oneOf } from "@/components/ui/search-params";
import { OVERVIEW_SORTS, type OverviewSort, type SortDirection } from "./prepare/overview";
import { bucketEnd, bucketStart, bucketCount, PRESET_MS, type Bucket, type RangePreset } from "./range";
import type { OverviewInput } from "./query";

export const OVERVIEW_PRESETS = ["24h", "7d", "30d", "90d"] as const satisfies readonly RangePreset[];
export type OverviewPreset = (typeof OVERVIEW_PRESETS)[number];

export const OVERVIEW_PARAM = { range: "range", sort: "sort", direction: "dir" } as const;

export interface OverviewFilters {
  preset: OverviewPreset;
  sort: OverviewSort;
  direction: SortDirection;
}

export const DEFAULT_OVERVIEW_FILTERS: OverviewFilters = { preset: "30d", sort: "name", direction: "asc" };

export function parseOverviewFilters(params: URLSearchParams): OverviewFilters {
  return {
    preset: oneOf(params.get(OVERVIEW_PARAM.range), OVERVIEW_PRESETS) ?? DEFAULT_OVERVIEW_FILTERS.preset,
    sort: oneOf(params.get(OVERVIEW_PARAM.sort), OVERVIEW_SORTS) ?? DEFAULT_OVERVIEW_FILTERS.sort,
    direction: oneOf(params.get(OVERVIEW_PARAM.direction), ["asc", "desc"] as const) ?? DEFAULT_OVERVIEW_FILTERS.direction,
  };
}

export function writeOverviewFilters(params: URLSearchParams, filters: OverviewFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  set(OVERVIEW_PARAM.range, filters.preset === DEFAULT_OVERVIEW_FILTERS.preset ? null : filters.preset);
  set(OVERVIEW_PARAM.sort, filters.sort === DEFAULT_OVERVIEW_FILTERS.sort ? null : filters.sort);
  set(OVERVIEW_PARAM.direction, filters.direction === DEFAULT_OVERVIEW_FILTERS.direction ? null : filters.direction);
  return next;
}

/** A sortable column's first direction: names A to Z, figures largest first. */
export function firstDirection(sort: OverviewSort): SortDirection {
  return sort === "name" ? "asc" : "desc";
}

/**
 * The overview's range: like the Evolution presets it ends with the bucket that holds now. Hours
 * for a day, days otherwise: a sparkline needs a shape, not 2,000 points.
 */
export function overviewRange(preset: OverviewPreset, now: number): { input: OverviewInput; bucket: Bucket; points: number } {
  const bucket: Bucket = preset === "24h" ? "hour" : "day";
  const to = bucketEnd(bucketStart(now, bucket), bucket);
  const from = bucketStart(to - PRESET_MS[preset], bucket);
  return { input: { from: new Date(from), to: new Date(to), bucket }, bucket, points: bucketCount(from, to, bucket) };
}
