// How often a playbook's Runs tab asks again, and what counts as work in its queue; shared by the
// tab, its status cards and its latest runs.
import type { RunsStatus } from "@/server/runs/schemas";

export const ACTIVE_POLL_MS = 2_000;
export const IDLE_POLL_MS = 15_000;

export function activeCount(status: RunsStatus): number {
  return status.queue.queued + status.queue.running;
}
