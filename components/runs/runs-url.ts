// The runs list's filters live in the URL (?playbook=…&role=curator&status=failed); the server page
// and the client list build the same query input from them.
import { RUN_ROLES, RUN_STATUSES, type RunRole, type RunStatus } from "@/server/runs/schemas";
import { isUuid, oneOf } from "@/components/ui/search-params";

export const RUNS_PARAM = { playbook: "playbook", role: "role", status: "status" } as const;

export interface RunFilters {
  playbookId: string | null;
  role: RunRole | null;
  status: RunStatus | null;
}

export const RUN_PAGE_SIZE = 50;

export function parseRunFilters(params: URLSearchParams): RunFilters {
  const playbook = params.get(RUNS_PARAM.playbook);
  return {
    playbookId: isUuid(playbook) ? playbook : null,
    role: oneOf(params.get(RUNS_PARAM.role), RUN_ROLES),
    status: oneOf(params.get(RUNS_PARAM.status), RUN_STATUSES),
  };
}

export function writeRunFilters(params: URLSearchParams, filters: RunFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  set(RUNS_PARAM.playbook, filters.playbookId);
  set(RUNS_PARAM.role, filters.role);
  set(RUNS_PARAM.status, filters.status);
  return next;
}

export function hasRunFilters(filters: RunFilters): boolean {
  return Boolean(filters.playbookId || filters.role || filters.status);
}

export function runListInput(filters: RunFilters, limit = RUN_PAGE_SIZE) {
  return {
    ...(filters.playbookId ? { playbookId: filters.playbookId } : {}),
    ...(filters.role ? { role: filters.role } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    limit,
  };
}

export function runsHref(filters: Partial<RunFilters> = {}): string {
  const query = writeRunFilters(new URLSearchParams(), { playbookId: null, role: null, status: null, ...filters }).toString();
  return `/runs${query ? `?${query}` : ""}`;
}

/** How many runs and traces a playbook's Runs tab lists; the full lists are a link away. */
export const RECENT_ON_TAB = 10;

/** The queries of a playbook's Runs tab, for the server prefetch and the client alike. */
export function playbookRunsInputs(playbookId: string) {
  return {
    status: { playbookId },
    runs: { playbookId, limit: RECENT_ON_TAB },
    traces: { playbookId, limit: RECENT_ON_TAB },
  };
}
