// The bullet filters live in the URL. This module turns search params into filters and filters
// into the playbook.bullets input, for the server page (prefetch) and the client (query) alike:
// both must build the very same input or the prefetched cache entry would be missed.
import { BULLET_SIGNALS, BULLET_SORTS, type BulletSignal, type ListBulletsInput } from "@/server/playbooks/schemas";
import { BULLET_PARAM } from "@/components/ui/routes";
import { isUuid, oneOf } from "@/components/ui/search-params";

export type BulletSort = (typeof BULLET_SORTS)[number];
export type BulletStatus = "active" | "archived" | "all";
export type SortDirection = "asc" | "desc";

export interface BulletFilters {
  search: string;
  sectionId: string | null;
  signals: BulletSignal[];
  sort: BulletSort;
  direction: SortDirection;
  status: BulletStatus;
}

export const PAGE_SIZE = 200;

/** URL parameter names; short so shared links stay readable. */
export const PARAM = {
  search: "q",
  section: "section",
  signal: "signal",
  sort: "sort",
  direction: "dir",
  status: "status",
  bullet: BULLET_PARAM,
} as const;

export const SORT_LABELS: Record<BulletSort, string> = {
  position: "Position",
  id: "Id",
  helpful: "Helpful",
  harmful: "Harmful",
  score: "Score (helpful − harmful)",
  recent: "Recent",
};

export const STATUS_LABELS: Record<BulletStatus, string> = {
  active: "Active",
  archived: "Archived",
  all: "All",
};

const STATUSES: readonly BulletStatus[] = ["active", "archived", "all"];

/** Reading order (position, id) goes up; rankings (counts, recency) show the largest first. */
export function defaultDirection(sort: BulletSort): SortDirection {
  return sort === "position" || sort === "id" ? "asc" : "desc";
}

/** Unknown or malformed values fall back to defaults, so a hand-edited link still opens. */
export function parseFilters(params: URLSearchParams): BulletFilters {
  const sort = oneOf(params.get(PARAM.sort), BULLET_SORTS) ?? "position";
  const section = params.get(PARAM.section);
  const signals = (params.get(PARAM.signal) ?? "")
    .split(",")
    .filter((s): s is BulletSignal => (BULLET_SIGNALS as readonly string[]).includes(s));
  return {
    search: (params.get(PARAM.search) ?? "").slice(0, 500),
    sectionId: isUuid(section) ? section : null,
    // Keep the canonical order so ?signal=a,b and ?signal=b,a share one cache entry.
    signals: BULLET_SIGNALS.filter((s) => signals.includes(s)),
    sort,
    direction: oneOf(params.get(PARAM.direction), ["asc", "desc"] as const) ?? defaultDirection(sort),
    status: oneOf(params.get(PARAM.status), STATUSES) ?? "active",
  };
}

/** Writes filters into params, leaving defaults out so URLs stay short. Other params are kept. */
export function writeFilters(params: URLSearchParams, filters: BulletFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  set(PARAM.search, filters.search.trim() || null);
  set(PARAM.section, filters.sectionId);
  set(PARAM.signal, filters.signals.length ? filters.signals.join(",") : null);
  set(PARAM.sort, filters.sort === "position" ? null : filters.sort);
  set(PARAM.direction, filters.direction === defaultDirection(filters.sort) ? null : filters.direction);
  set(PARAM.status, filters.status === "active" ? null : filters.status);
  return next;
}

export function hasActiveFilters(filters: BulletFilters): boolean {
  return Boolean(filters.search.trim() || filters.sectionId || filters.signals.length || filters.status !== "active");
}

export type BulletQueryInput = Omit<ListBulletsInput, "cursor">;

/** The playbook.bullets input for these filters, without the cursor (the infinite query adds it). */
export function bulletQueryInput(playbookId: string, filters: BulletFilters): BulletQueryInput {
  const search = filters.search.trim();
  return {
    playbookId,
    ...(search ? { search } : {}),
    ...(filters.sectionId ? { sectionIds: [filters.sectionId] } : {}),
    ...(filters.signals.length ? { signals: filters.signals } : {}),
    status: filters.status,
    sort: filters.sort,
    order: filters.direction,
    limit: PAGE_SIZE,
  };
}

/** Next cursor for playbook.bullets pages; the same function on the server and in the browser. */
export function nextBulletCursor(page: { nextCursor: number | null }): number | undefined {
  return page.nextCursor ?? undefined;
}
