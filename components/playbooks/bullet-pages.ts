// Paging options of the playbook.bullets infinite query, shared by the server page (prefetch)
// and the client list so both build the same query.
import { nextBulletCursor } from "./filters";

export const BULLET_PAGES = {
  initialCursor: 0,
  getNextPageParam: nextBulletCursor,
  // Pages are never refetched in place, so deep-comparing up to 10,000 loaded rows on every new
  // page would only cost time.
  structuralSharing: false,
} as const;
