import { describe, expect, it } from "vitest";
import { AUTH_DEFAULTS, loadAuthSettings } from "./config";

describe("account settings from the environment", () => {
  it("has defaults: auto, loopback host names, no trusted proxy, 6000 requests a minute per key", () => {
    const settings = loadAuthSettings({});
    expect(settings.mode).toBe("auto");
    expect(settings.allowedHosts).toEqual(["localhost", "127.0.0.1", "::1"]);
    expect(settings.trustedProxies.has("127.0.0.1")).toBe(false);
    expect(settings.apiRateLimitPerMinute).toBe(AUTH_DEFAULTS.apiRateLimitPerMinute);
    expect(settings.auditIpDays).toBe(90);
    expect(settings.secret).toBeNull();
  });

  it("reads each variable", () => {
    const settings = loadAuthSettings({
      ACE_AUTH: "ON",
      ACE_ALLOWED_HOSTS: "ace.example.com, [::1], *.corp.example",
      ACE_TRUSTED_PROXIES: "127.0.0.1,10.0.0.0/8",
      ACE_SECRET: "s".repeat(40),
      ACE_API_RATE_LIMIT: "20000",
      ACE_AUDIT_IP_DAYS: "30",
    });
    expect(settings.mode).toBe("on");
    expect(settings.allowedHosts).toEqual(["ace.example.com", "::1", "*.corp.example"]);
    expect(settings.trustedProxies.has("10.9.9.9")).toBe(true);
    expect(settings.apiRateLimitPerMinute).toBe(20000);
    expect(settings.auditIpDays).toBe(30);
    expect(loadAuthSettings({ ACE_ALLOWED_HOSTS: "*" }).allowedHosts).toBe("any");
  });

  it("stops on a bad value, naming the variable and what it accepts, and never repeats a secret", () => {
    expect(() => loadAuthSettings({ ACE_AUTH: "maybe" })).toThrow(/ACE_AUTH must be "auto", "on" or "off", got "maybe"/);
    expect(() => loadAuthSettings({ ACE_TRUSTED_PROXIES: "proxy.local" })).toThrow(
      /ACE_TRUSTED_PROXIES has "proxy\.local" is not an IP address/,
    );
    expect(() => loadAuthSettings({ ACE_ALLOWED_HOSTS: "https://ace.example.com" })).toThrow(
      /ACE_ALLOWED_HOSTS has "https:\/\/ace\.example\.com"/,
    );
    expect(() => loadAuthSettings({ ACE_SECRET: "short-secret" })).toThrow(/ACE_SECRET must be at least 32 characters/);
    expect(() => loadAuthSettings({ ACE_SECRET: "short-secret" })).not.toThrow(/short-secret/);
  });
});
