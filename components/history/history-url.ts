// The history page's URL: /playbooks/<id>/history?from=4&to=5 compares two versions (the links
// themselves are built by components/ui/routes.ts). The parse is lenient so a hand-edited link
// still opens.

function parseVersion(value: string | null | undefined): number | null {
  if (!value || !/^\d{1,9}$/.test(value)) return null;
  const number = Number(value);
  return number >= 1 ? number : null;
}

/**
 * The pair to compare: `to` defaults to the current version and `from` to the one before it, so
 * a link to one version (?to=5) shows what that version did.
 */
export function resolveCompare(params: { from?: string | null; to?: string | null }, currentVersion: number): { from: number; to: number } {
  const to = Math.min(parseVersion(params.to) ?? currentVersion, currentVersion);
  const from = Math.min(parseVersion(params.from) ?? Math.max(1, to - 1), currentVersion);
  return { from, to };
}

export const VERSION_PAGE_SIZE = 25;

export function versionsInput(playbookId: string) {
  return { playbookId, limit: VERSION_PAGE_SIZE };
}
