// Conditional GETs for the plain HTTP routes: agents poll a resource and download it only when it changed.

/**
 * Whether If-None-Match names this entity tag (RFC 9110 §13.1.2: weak comparison, a list of tags,
 * or "*"). true → answer 304 Not Modified.
 */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return header.split(",").some((tag) => opaque(tag) === opaque(etag));
}
