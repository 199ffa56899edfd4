// The queue's state lives in the URL (?status=…&origin=…&delta=…), so a link to a delta opens it,
// and the server page and the client list build the very same query input.
import { DELTA_ORIGINS, type DeltaOrigin, type ListDeltasInput } from "@/server/deltas/schemas";
import { isUuid, oneOf } from "@/components/ui/search-params";

/** The list filters people choose from; "applied" includes auto-applied ones (the server's rule). */
export const REVIEW_STATUSES = ["pending", "stale", "applied", "auto_applied", "rejected", "all"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** What the queue lists: a status tab and, optionally, one origin (null: every origin). */
export interface ReviewFilters {
  status: ReviewStatus;
  origin: DeltaOrigin | null;
}

export const REVIEW_PARAM = { status: "status", origin: "origin", delta: "delta" } as const;

export const PAGE_SIZE = 25;

export function parseReviewStatus(value: string | null | undefined): ReviewStatus {
  return oneOf(value, REVIEW_STATUSES) ?? "pending";
}

/** An unknown origin means no filter, so a hand-edited link still opens a list. */
export function parseReviewOrigin(value: string | null | undefined): DeltaOrigin | null {
  return oneOf(value, DELTA_ORIGINS);
}

export function parseDeltaId(value: string | null | undefined): string | null {
  return isUuid(value) ? value : null;
}

/** The filters in search params; the server page and the client hook both read them with this. */
export function parseReviewFilters(params: Pick<URLSearchParams, "get">): ReviewFilters {
  return {
    status: parseReviewStatus(params.get(REVIEW_PARAM.status)),
    origin: parseReviewOrigin(params.get(REVIEW_PARAM.origin)),
  };
}

/** Writes the filters into params in place, leaving the defaults (pending, every origin) out. */
export function writeReviewFilters(params: URLSearchParams, filters: ReviewFilters): URLSearchParams {
  if (filters.status === "pending") params.delete(REVIEW_PARAM.status);
  else params.set(REVIEW_PARAM.status, filters.status);
  if (filters.origin) params.set(REVIEW_PARAM.origin, filters.origin);
  else params.delete(REVIEW_PARAM.origin);
  return params;
}

export type DeltaListQueryInput = Omit<ListDeltasInput, "cursor">;

export function deltaListInput(playbookId: string | undefined, filters: ReviewFilters): DeltaListQueryInput {
  return {
    ...(playbookId ? { playbookId } : {}),
    status: filters.status,
    ...(filters.origin ? { origin: filters.origin } : {}),
    limit: PAGE_SIZE,
  };
}

/** Just the count of pending deltas (the tab and top-bar badges), of every origin; one row comes along. */
export function pendingCountInput(playbookId?: string): ListDeltasInput {
  return { ...(playbookId ? { playbookId } : {}), status: "pending", limit: 1 };
}

/** A link into a queue (a playbook's or the global one), optionally filtered and onto one delta. */
export function reviewHref(
  playbookId: string | null,
  options: { deltaId?: string; status?: ReviewStatus; origin?: DeltaOrigin | null } = {},
): string {
  const params = writeReviewFilters(new URLSearchParams(), { status: options.status ?? "pending", origin: options.origin ?? null });
  if (options.deltaId) params.set(REVIEW_PARAM.delta, options.deltaId);
  const query = params.toString();
  return `${playbookId ? `/playbooks/${playbookId}/review` : "/review"}${query ? `?${query}` : ""}`;
}
