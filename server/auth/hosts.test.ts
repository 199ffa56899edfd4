import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOWED_HOSTS } from "./config";
import { hostName, hostRefusal, isHostAllowed, unknownHostRefusal } from "./hosts";

describe("allowed hosts (DNS rebinding)", () => {
  it("reads the name of a Host header with or without a port", () => {
    expect(hostName("Example.COM:3000")).toBe("example.com");
    expect(hostName("[::1]:3000")).toBe("::1");
    expect(hostName("127.0.0.1")).toBe("127.0.0.1");
    expect(hostName("")).toBeNull();
  });

  it("answers loopback names and any address by default, and refuses other names", () => {
    for (const host of ["localhost:3000", "127.0.0.1:3000", "[::1]:3000", "app.localhost:3000", "192.168.1.5:3000"]) {
      expect(isHostAllowed(host, DEFAULT_ALLOWED_HOSTS), host).toBe(true);
    }
    expect(isHostAllowed("attacker.example:3000", DEFAULT_ALLOWED_HOSTS)).toBe(false);
    expect(isHostAllowed("localhost.attacker.example", DEFAULT_ALLOWED_HOSTS)).toBe(false);
    expect(isHostAllowed(null, DEFAULT_ALLOWED_HOSTS)).toBe(false);
  });

  it("takes listed names and wildcard subdomains, or any host with *", () => {
    const allowed = ["ace.example.com", "*.internal.example"];
    expect(isHostAllowed("ace.example.com", allowed)).toBe(true);
    expect(isHostAllowed("team.internal.example:8443", allowed)).toBe(true);
    expect(isHostAllowed("internal.example", allowed)).toBe(false);
    expect(isHostAllowed("anything.at.all", "any")).toBe(true);
  });

  it("says which name was refused and how to allow it", () => {
    expect(hostRefusal("evil.example:3000", DEFAULT_ALLOWED_HOSTS)).toMatch(
      /"evil\.example".*ACE_ALLOWED_HOSTS \(now: localhost, 127\.0\.0\.1, ::1\)/,
    );
  });

  it("refuses a request whose Host or first X-Forwarded-Host is not the studio's", () => {
    const headers = (entries: Record<string, string>) => new Headers(entries);
    expect(unknownHostRefusal(headers({ host: "localhost:3000" }), DEFAULT_ALLOWED_HOSTS)).toBeNull();
    expect(unknownHostRefusal(headers({ host: "evil.example" }), DEFAULT_ALLOWED_HOSTS)).toMatch(/"evil\.example"/);
    expect(
      unknownHostRefusal(headers({ host: "127.0.0.1:3000", "x-forwarded-host": "evil.example, localhost" }), DEFAULT_ALLOWED_HOSTS),
    ).toMatch(/"evil\.example"/);
    expect(unknownHostRefusal(headers({ host: "127.0.0.1:3000", "x-forwarded-host": "localhost" }), DEFAULT_ALLOWED_HOSTS)).toBeNull();
    expect(unknownHostRefusal(headers({}), DEFAULT_ALLOWED_HOSTS)).toMatch(/"\(none\)"/);
  });
});
