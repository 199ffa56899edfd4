// Where the detail pages live: the paths every domain folder links to by id, kept here so a folder
// can link to another's page without importing that folder. Links into a filtered list stay beside
// that list's filter parsing (deltas/review-url, traces/trace-url, runs/runs-url).

/** ?bullet=<externalId> on a playbook page opens that bullet's sheet. */
export const BULLET_PARAM = "bullet";

/** ?from=4&to=5 on a playbook's history page compares two versions. */
export const HISTORY_PARAM = { from: "from", to: "to" } as const;

/** A bullet's entry on its playbook page. */
export function bulletHref(playbookId: string, externalId: string): string {
  return `/playbooks/${playbookId}?${BULLET_PARAM}=${encodeURIComponent(externalId)}`;
}

/** A playbook's history; without a pair it shows the latest change. */
export function historyHref(playbookId: string, compare: { from?: number; to?: number } = {}): string {
  const params = new URLSearchParams();
  if (compare.from !== undefined) params.set(HISTORY_PARAM.from, String(compare.from));
  if (compare.to !== undefined) params.set(HISTORY_PARAM.to, String(compare.to));
  const query = params.toString();
  return `/playbooks/${playbookId}/history${query ? `?${query}` : ""}`;
}

/** The playbook as it was at one version. */
export function versionHref(playbookId: string, version: number): string {
  return `/playbooks/${playbookId}/history/${version}`;
}

export function traceHref(traceId: string): string {
  return `/traces/${traceId}`;
}

export function runHref(runId: string): string {
  return `/runs/${runId}`;
}
