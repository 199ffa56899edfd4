// The security headers of every response the studio makes. proxy.ts puts them on pages and the
// studio's own routes; the agents' API (/api/v1, /api/mcp) does not pass through proxy.ts and gets
// them from its route wrapper (server/apikeys/route.ts), which is the same set.

/** Every response. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin",
  "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
};

/** Routes that answer data, never a document: nothing may load or frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
