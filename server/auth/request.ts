// What the server knows about where a request came from: its id, the client's address, whether it
// came straight from this computer, whether this server listens on loopback only, and HTTPS.
import { randomUUID } from "node:crypto";
import type { AuthSettings } from "./config";
import { forwardedChain, clientIp, isLoopbackBindAddress, isLoopbackIp, normalizeIp } from "./network";
import { readPeer } from "./peer";

export const REQUEST_ID_HEADER = "x-request-id";

export interface RequestInfo {
  /** Ties a request's audit entries and log lines together; proxy.ts sets it on every request. */
  id: string;
  /** The client's address (trusted proxies peeled off); null when unknown. */
  ip: string | null;
  userAgent: string | null;
  /** Straight from this computer: the socket's peer is loopback and no forwarding header came with it. */
  local: boolean;
  /** The server that took the request listens on a loopback address only. */
  loopbackBound: boolean;
  /** Served over HTTPS, directly or behind a proxy that says so: cookies get the Secure flag. */
  https: boolean;
}

/**
 * Whether a request was made inside this process (a test or script calling a route handler) rather
 * than received: Next.js gives every request it receives Host and X-Forwarded-For (it fills the
 * latter from the socket), and the peer stamp; a Request built in-process has none of them.
 */
function madeInProcess(headers: Headers, peer: unknown): boolean {
  return peer === null && !headers.has("host") && !headers.has("x-forwarded-for") && !headers.has("x-forwarded-host");
}

export function readRequestInfo(headers: Headers, settings: Pick<AuthSettings, "trustedProxies">): RequestInfo {
  const peer = readPeer(headers);
  const common = {
    id: requestIdOf(headers),
    userAgent: headers.get("user-agent")?.slice(0, 300) ?? null,
    https: headers.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase() === "https",
  };
  if (madeInProcess(headers, peer)) return { ...internalRequest(), ...common };
  const forwardedFor = headers.get("x-forwarded-for");
  // Without the stamp (a server this process did not stamp) nothing proves locality; the last
  // X-Forwarded-For entry is Next.js's own record of the socket or whatever the client claimed.
  const ip = peer
    ? clientIp(peer.remote, peer.forwarded ? forwardedFor : null, settings.trustedProxies)
    : normalizeIp(forwardedChain(forwardedFor).at(-1));
  return {
    ...common,
    ip,
    local: peer !== null && !peer.forwarded && isLoopbackIp(peer.remote),
    loopbackBound: peer !== null && isLoopbackBindAddress(peer.listen),
  };
}

function requestIdOf(headers: Headers): string {
  const requestId = headers.get(REQUEST_ID_HEADER);
  return requestId && /^[A-Za-z0-9._-]{8,100}$/.test(requestId) ? requestId : randomUUID();
}

/** A request made inside the server (tests, the CLI on its own database): local, no address. */
export function internalRequest(): RequestInfo {
  return { id: randomUUID(), ip: null, userAgent: null, local: true, loopbackBound: true, https: false };
}
