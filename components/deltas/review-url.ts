// The queue's state lives in the URL (?status=…&delta=…), so a link to a delta opens it, and the
// server page and the client list build the very same query input.
import type { ListDeltasInput } from "@/server/deltas/schemas";

/** The list filters people choose from; "applied" includes auto-applied ones (the server's rule). */
export const REVIEW_STATUSES = ["pending", "stale", "applied", "auto_applied", "rejected", "all"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const REVIEW_PARAM = { status: "status", delta: "delta" } as const;

export const PAGE_SIZE = 25;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function parseReviewStatus(value: string | null | undefined): ReviewStatus {
  return (REVIEW_STATUSES as readonly string[]).includes(value ?? "") ? (value as ReviewStatus) : "pending";
}

export function parseDeltaId(value: string | null | undefined): string | null {
  return value && UUID.test(value) ? value : null;
}

export type DeltaListQueryInput = Omit<ListDeltasInput, "cursor">;

export function deltaListInput(playbookId: string | undefined, status: ReviewStatus): DeltaListQueryInput {
  return { ...(playbookId ? { playbookId } : {}), status, limit: PAGE_SIZE };
}

/** Just the count of pending deltas (the tab and top-bar badges); one row comes along. */
export function pendingCountInput(playbookId?: string): ListDeltasInput {
  return { ...(playbookId ? { playbookId } : {}), status: "pending", limit: 1 };
}

/** A link into a queue (a playbook's or the global one), optionally onto one delta. */
export function reviewHref(playbookId: string | null, options: { deltaId?: string; status?: ReviewStatus } = {}): string {
  const params = new URLSearchParams();
  if (options.status && options.status !== "pending") params.set(REVIEW_PARAM.status, options.status);
  if (options.deltaId) params.set(REVIEW_PARAM.delta, options.deltaId);
  const query = params.toString();
  return `${playbookId ? `/playbooks/${playbookId}/review` : "/review"}${query ? `?${query}` : ""}`;
}
