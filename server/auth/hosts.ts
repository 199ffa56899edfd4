// Which Host headers the studio answers (DNS rebinding: a web page whose name was re-pointed at
// 127.0.0.1 reaches a loopback-bound server with its own name in Host, so unknown names are refused).
import { normalizeIp } from "./network";

/** The host name of a Host header value: "Example.com:3000" → "example.com", "[::1]:3000" → "::1". */
export function hostName(value: string | null | undefined): string | null {
  if (!value) return null;
  const host = value.trim().toLowerCase();
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end > 1 ? host.slice(1, end) : null;
  }
  // A bare IPv6 address has colons of its own; only "name:port" has exactly one.
  if ((host.match(/:/g) ?? []).length > 1) return host;
  const name = host.replace(/:\d*$/, "").replace(/\.$/, "");
  return name || null;
}

/**
 * Whether a Host header names this studio. Addresses (127.0.0.1, 192.168.1.5, [::1]) always do:
 * rebinding needs a name. Names must be listed; "localhost" also covers its subdomains (browsers
 * resolve *.localhost to loopback themselves), and "*.example.com" covers example.com's subdomains.
 */
export function isHostAllowed(hostHeader: string | null | undefined, allowed: readonly string[] | "any"): boolean {
  const host = hostName(hostHeader);
  if (!host) return false;
  if (allowed === "any" || normalizeIp(host)) return true;
  return allowed.some((entry) => {
    if (entry === host) return true;
    if (entry === "localhost") return host.endsWith(".localhost");
    return entry.startsWith("*.") && host.endsWith(entry.slice(1));
  });
}

export function hostRefusal(hostHeader: string | null | undefined, allowed: readonly string[] | "any"): string {
  const shown = hostName(hostHeader) ?? "(none)";
  const list = allowed === "any" ? "any" : allowed.join(", ");
  return (
    `This ACE Studio does not answer to the host name "${shown}". ` +
    `It answers to addresses and to the names in ACE_ALLOWED_HOSTS (now: ${list}). ` +
    "If this name is yours, add it to ACE_ALLOWED_HOSTS and restart the server."
  );
}

/**
 * The refusal of a request whose Host, or X-Forwarded-Host, is not this studio's; null when both
 * are. Both must be ours: Host is what the browser connected to; X-Forwarded-Host is what a proxy
 * (or, after rebinding, the attacker's own same-origin script) says it was.
 */
export function unknownHostRefusal(headers: Headers, allowed: readonly string[] | "any"): string | null {
  const host = headers.get("host");
  const forwardedHost = headers.get("x-forwarded-host")?.split(",")[0];
  if (!isHostAllowed(host, allowed)) return hostRefusal(host, allowed);
  if (forwardedHost && !isHostAllowed(forwardedHost, allowed)) return hostRefusal(forwardedHost, allowed);
  return null;
}
