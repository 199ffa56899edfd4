// Network addresses of a request: which are loopback, which proxies are trusted, and which address
// is the client's once the trusted proxies' X-Forwarded-For entries are peeled off.
import { BlockList, isIP } from "node:net";

/** "::ffff:127.0.0.1" → "127.0.0.1", "[::1]" → "::1", "fe80::1%eth0" → "fe80::1"; null when not an IP address. */
export function normalizeIp(value: string | null | undefined): string | null {
  if (!value) return null;
  let ip = value.trim();
  if (ip.startsWith("[") && ip.includes("]")) ip = ip.slice(1, ip.indexOf("]"));
  const zone = ip.indexOf("%");
  if (zone >= 0) ip = ip.slice(0, zone);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) ip = mapped[1]!;
  return isIP(ip) ? ip.toLowerCase() : null;
}

/** 127.0.0.0/8 and ::1. */
export function isLoopbackIp(value: string | null | undefined): boolean {
  const ip = normalizeIp(value);
  if (!ip) return false;
  return isIP(ip) === 4 ? ip.startsWith("127.") : ip === "::1";
}

/** Whether an address a server listens on is loopback only ("0.0.0.0" and "::" listen everywhere). */
export function isLoopbackBindAddress(value: string | null | undefined): boolean {
  return isLoopbackIp(value);
}

/**
 * A set of addresses and ranges ("10.0.0.0/8, 192.168.1.7, fd00::/8"). Throws a message naming
 * the bad entry; the config reader turns it into a start-up error.
 */
export class AddressSet {
  private readonly list = new BlockList();
  readonly entries: readonly string[];

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, prefix, ...rest] = entry.split("/");
      const ip = normalizeIp(address);
      const family = ip ? (isIP(ip) === 4 ? "ipv4" : "ipv6") : null;
      const bits = prefix === undefined ? null : Number(prefix);
      const maxBits = family === "ipv4" ? 32 : 128;
      if (!ip || !family || rest.length > 0 || (bits !== null && (!Number.isInteger(bits) || bits < 0 || bits > maxBits))) {
        throw new Error(`"${entry}" is not an IP address or a range like 10.0.0.0/8`);
      }
      if (bits === null) this.list.addAddress(ip, family);
      else this.list.addSubnet(ip, bits, family);
    }
    this.entries = entries;
  }

  has(value: string | null | undefined): boolean {
    const ip = normalizeIp(value);
    if (!ip) return false;
    return this.list.check(ip, isIP(ip) === 4 ? "ipv4" : "ipv6");
  }
}

/** The addresses in an X-Forwarded-For header, left (the original client) to right (the last proxy). */
export function forwardedChain(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/**
 * The client's address: the socket's peer, unless that peer is a trusted proxy, in which case the
 * X-Forwarded-For chain is read from the right, skipping trusted proxies, and the first address not
 * trusted is the client. An unparsable entry stops the walk there (nothing left of it can be believed).
 */
export function clientIp(socketPeer: string | null, forwardedFor: string | null, trusted: AddressSet): string | null {
  let current = normalizeIp(socketPeer);
  if (!current) return null;
  const chain = forwardedChain(forwardedFor);
  while (trusted.has(current) && chain.length > 0) {
    const next = normalizeIp(chain.pop());
    if (!next) return current;
    current = next;
  }
  return current;
}
