// The audit page's filters in the URL, read alike by the server page (prefetch) and the browser.
import { auditSearchParams, parseAuditSearch, readAuditSearch, type AuditFilters, type AuditSearch } from "@/server/audit/schemas";

export { readAuditSearch };

export function writeAuditSearch(_current: URLSearchParams, search: AuditSearch): URLSearchParams {
  return auditSearchParams(search);
}

/** The procedure's input for the filters in the URL. */
export function auditListInput(search: AuditSearch): AuditFilters {
  return parseAuditSearch(auditSearchParams(search));
}

export function hasAuditFilters(search: AuditSearch): boolean {
  return Object.values(search).some((value) => value !== "");
}

export function auditCsvHref(search: AuditSearch): string {
  const query = auditSearchParams(search).toString();
  return `/api/audit/export${query ? `?${query}` : ""}`;
}

export const AUDIT_PAGES = {
  getNextPageParam: (page: { nextCursor: string | null }) => page.nextCursor ?? undefined,
} as const;
