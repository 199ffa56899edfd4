// What Next.js does not tell a route handler: the socket's peer address, the address the server
// listens on, and whether the request came with forwarding headers (Next.js fills X-Forwarded-For
// in itself, so its presence proves nothing). installPeerStamp() adds the three to every request
// as one header, sealed with a secret of this process so that no client can forge it.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import net from "node:net";

export const PEER_HEADER = "x-ace-peer";

/** Headers a proxy adds: a request that carries one did not come straight from its socket's peer. */
const FORWARDING_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip", "x-forwarded-host"] as const;

export interface Peer {
  /** The socket's remote address: the client, or the last proxy. */
  remote: string | null;
  /** The address the server listens on ("127.0.0.1", "::", "0.0.0.0", …). */
  listen: string | null;
  /** The request arrived with X-Forwarded-For, Forwarded, X-Real-IP or X-Forwarded-Host. */
  forwarded: boolean;
}

type PeerState = { seal: string; installed: boolean };
// On globalThis: Next.js may load this module more than once, and every copy must share one seal.
const globalForPeer = globalThis as typeof globalThis & { __acePeer?: PeerState };
const state: PeerState = (globalForPeer.__acePeer ??= { seal: randomBytes(18).toString("base64url"), installed: false });

/**
 * Stamps every request that reaches an HTTP(S) server of this process from now on. Next.js gives
 * its handlers no socket, so this wraps the servers' event emitter, the one place every request
 * passes with its socket; it only adds a header.
 */
export function installPeerStamp(): void {
  if (state.installed) return;
  state.installed = true;
  const original = net.Server.prototype.emit;
  net.Server.prototype.emit = function emitWithPeer(this: net.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request") stampRequest(this, args[0] as IncomingMessage);
    return original.apply(this, [event, ...args] as Parameters<typeof original>);
  };
}

function stampRequest(server: net.Server, request: IncomingMessage): void {
  const existing = request.headers[PEER_HEADER];
  // Already stamped by this process (a request Next.js hands on internally): keep the outer stamp.
  if (typeof existing === "string" && unseal(existing)) return;
  const address = server.address();
  const listen = address && typeof address === "object" ? address.address : "";
  const forwarded = FORWARDING_HEADERS.some((name) => request.headers[name] !== undefined);
  request.headers[PEER_HEADER] = sealPeer({ remote: request.socket.remoteAddress ?? null, listen, forwarded });
}

/** The header value for a peer (exported for tests that stand in for a real socket). */
export function sealPeer(peer: Peer): string {
  return [state.seal, peer.remote ?? "-", peer.listen || "-", peer.forwarded ? "1" : "0"].join(" ");
}

function unseal(value: string): Peer | null {
  const [seal, remote, listen, forwarded, ...rest] = value.split(" ");
  if (!seal || !remote || !listen || !forwarded || rest.length > 0) return null;
  const given = Buffer.from(seal);
  const expected = Buffer.from(state.seal);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { remote: remote === "-" ? null : remote, listen: listen === "-" ? null : listen, forwarded: forwarded === "1" };
}

/** The stamped peer of a request, or null when it carries no stamp of this process (or a forged one). */
export function readPeer(headers: Headers): Peer | null {
  const value = headers.get(PEER_HEADER);
  return value ? unseal(value) : null;
}
