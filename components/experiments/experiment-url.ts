// Where the experiment pages live, and the list's filters in the URL (?status=running&playbook=…):
// the server page and the client list build the same query input from them.
import { EXPERIMENT_STATUSES, type ExperimentStatus } from "@/server/experiments/schemas";
import { isUuid, oneOf } from "@/components/ui/search-params";

export const EXPERIMENTS_PARAM = { status: "status", playbook: "playbook" } as const;

export interface ExperimentFilters {
  status: ExperimentStatus | null;
  playbookId: string | null;
}

export function parseExperimentFilters(params: URLSearchParams): ExperimentFilters {
  const playbook = params.get(EXPERIMENTS_PARAM.playbook);
  return {
    status: oneOf(params.get(EXPERIMENTS_PARAM.status), EXPERIMENT_STATUSES),
    playbookId: isUuid(playbook) ? playbook : null,
  };
}

export function writeExperimentFilters(params: URLSearchParams, filters: ExperimentFilters): URLSearchParams {
  const next = new URLSearchParams(params);
  const set = (key: string, value: string | null) => (value ? next.set(key, value) : next.delete(key));
  set(EXPERIMENTS_PARAM.status, filters.status);
  set(EXPERIMENTS_PARAM.playbook, filters.playbookId);
  return next;
}

export function hasExperimentFilters(filters: ExperimentFilters): boolean {
  return Boolean(filters.status || filters.playbookId);
}

/** The experiments.list input for these filters. */
export function experimentListInput(filters: ExperimentFilters) {
  return {
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.playbookId ? { playbookId: filters.playbookId } : {}),
  };
}

export function experimentsHref(filters: Partial<ExperimentFilters> = {}): string {
  const query = writeExperimentFilters(new URLSearchParams(), { status: null, playbookId: null, ...filters }).toString();
  return `/experiments${query ? `?${query}` : ""}`;
}

export function experimentHref(key: string): string {
  return `/experiments/${encodeURIComponent(key)}`;
}

/** ?playbook=<id> on /experiments/new chooses the playbook. */
export function newExperimentHref(playbookId?: string): string {
  return playbookId ? `/experiments/new?${EXPERIMENTS_PARAM.playbook}=${playbookId}` : "/experiments/new";
}

/** The versions a variant's version picker lists (newest first); older ones are typed as a number. */
export function versionChoicesInput(playbookId: string) {
  return { playbookId, limit: 100 };
}

/** ?phase=2 on an experiment's page shows that phase's results; without it, the current (or last) phase. */
export const PHASE_PARAM = "phase";

export function parsePhaseParam(params: URLSearchParams): { phase: number | null } {
  const text = params.get(PHASE_PARAM);
  const phase = text !== null && /^[1-9]\d{0,5}$/.test(text) ? Number(text) : null;
  return { phase };
}

export function writePhaseParam(params: URLSearchParams, filters: { phase: number | null }): URLSearchParams {
  const next = new URLSearchParams(params);
  if (filters.phase === null) next.delete(PHASE_PARAM);
  else next.set(PHASE_PARAM, String(filters.phase));
  return next;
}

/** The experiments.results input for a page: the phase only when one is asked for. */
export function resultsQueryInput(key: string, phase: number | null) {
  return phase === null ? { key } : { key, phase };
}

/** The experiments.list input of a playbook's running-experiments card (the layout prefetches it). */
export function runningExperimentsInput(playbookId: string) {
  return { playbookId, status: "running" as const };
}
