// Cross-site request forgery: a page on another site can make the browser send a form or a fetch
// to the studio, with the session cookie, or, on a laptop without accounts, as the local admin.
// Browsers say where a request comes from (Sec-Fetch-Site, Origin); changes from elsewhere are refused.

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Why a request must be refused as cross-site, or null when it may go on. Requests without either
 * header do not come from a browser page (the CLI, curl, an agent) and carry no ambient cookie risk
 * worth refusing them for.
 */
export function crossSiteRefusal(method: string, headers: Headers): string | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  const fetchSite = headers.get("sec-fetch-site")?.toLowerCase();
  if (fetchSite) {
    // "none": the person typed the address or used a bookmark. "same-site" is refused: a sibling
    // subdomain or another port on localhost is another application.
    if (fetchSite === "same-origin" || fetchSite === "none") return null;
    return refusal(headers.get("origin") ?? fetchSite);
  }
  const origin = headers.get("origin");
  if (origin === null) return null;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return refusal(origin);
  }
  // X-Forwarded-Host: the name a proxy was asked for (Next.js sets it to Host when no proxy did).
  // A cross-site page cannot set it (it is not a header a browser sends cross-origin without CORS).
  const hosts = [headers.get("host"), headers.get("x-forwarded-host")].filter((h): h is string => Boolean(h));
  return hosts.some((host) => host.toLowerCase() === originHost) ? null : refusal(origin);
}

function refusal(from: string): string {
  return (
    `Refused a change sent from another site (${from}). ACE Studio accepts changes only from its own pages; ` +
    "scripts and agents use the /api/v1 routes with an API key."
  );
}
