import { describe, expect, it } from "vitest";
import { AddressSet, clientIp, isLoopbackIp, normalizeIp } from "./network";

describe("addresses", () => {
  it("normalises mapped, bracketed and zoned addresses and refuses what is not one", () => {
    expect(normalizeIp("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeIp("[::1]")).toBe("::1");
    expect(normalizeIp("fe80::1%eth0")).toBe("fe80::1");
    expect(normalizeIp("localhost")).toBeNull();
    expect(normalizeIp("")).toBeNull();
  });

  it("knows loopback: all of 127.0.0.0/8 and ::1, not 0.0.0.0 or ::", () => {
    expect(isLoopbackIp("127.0.0.1")).toBe(true);
    expect(isLoopbackIp("127.8.9.10")).toBe(true);
    expect(isLoopbackIp("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopbackIp("::1")).toBe(true);
    expect(isLoopbackIp("0.0.0.0")).toBe(false);
    expect(isLoopbackIp("::")).toBe(false);
    expect(isLoopbackIp("192.168.1.5")).toBe(false);
  });

  it("matches addresses and ranges of trusted proxies, and names a bad entry", () => {
    const set = new AddressSet(["10.0.0.0/8", "192.168.1.7", "fd00::/8"]);
    expect(set.has("10.200.3.4")).toBe(true);
    expect(set.has("::ffff:10.1.1.1")).toBe(true);
    expect(set.has("192.168.1.7")).toBe(true);
    expect(set.has("192.168.1.8")).toBe(false);
    expect(set.has("fd12::1")).toBe(true);
    expect(() => new AddressSet(["10.0.0.0/33"])).toThrow(/"10\.0\.0\.0\/33" is not an IP address/);
    expect(() => new AddressSet(["proxy.local"])).toThrow(/"proxy\.local"/);
  });
});

describe("the client's address", () => {
  const proxies = new AddressSet(["127.0.0.1", "10.0.0.0/8"]);

  it("is the socket's peer when that peer is not a trusted proxy, whatever X-Forwarded-For claims", () => {
    expect(clientIp("203.0.113.9", "1.2.3.4", proxies)).toBe("203.0.113.9");
  });

  it("is read from X-Forwarded-For right to left, past every trusted proxy", () => {
    expect(clientIp("127.0.0.1", "198.51.100.7", proxies)).toBe("198.51.100.7");
    expect(clientIp("127.0.0.1", "6.6.6.6, 198.51.100.7, 10.1.2.3", proxies)).toBe("198.51.100.7");
  });

  it("stops at the last trusted proxy when the chain runs out or holds garbage", () => {
    expect(clientIp("10.0.0.5", "", proxies)).toBe("10.0.0.5");
    expect(clientIp("10.0.0.5", "not-an-ip", proxies)).toBe("10.0.0.5");
  });
});
