// The settings of accounts, keys and the network boundary, read from the environment and checked
// with zod like every other setting (a bad value stops the start with the variable's name).
import { z } from "zod";
import { describeIssue, oneOf, quotedValue, setting, settingsError, wholeNumber, type EnvSource } from "@/server/config/env";
import { AddressSet, normalizeIp } from "./network";

export const AUTH_MODES = ["auto", "on", "off"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** Host names a loopback-bound studio answers to when ACE_ALLOWED_HOSTS is unset. */
export const DEFAULT_ALLOWED_HOSTS = ["localhost", "127.0.0.1", "::1"] as const;

export const AUTH_DEFAULTS = {
  mode: "auto",
  apiRateLimitPerMinute: 6_000,
  auditIpDays: 90,
  sessionDays: 30,
} as const;

export interface AuthSettings {
  /** ACE_AUTH: auto (sign-in once an account exists or the server is reachable from the network), on, off. */
  mode: AuthMode;
  /** ACE_ALLOWED_HOSTS: the names the studio answers to (DNS rebinding); "*" for any. */
  allowedHosts: readonly string[] | "any";
  /** ACE_TRUSTED_PROXIES: whose X-Forwarded-For to believe. */
  trustedProxies: AddressSet;
  /** ACE_SECRET: the key of the API keys' HMAC; unset, one is generated and kept in the database. */
  secret: string | null;
  /** ACE_API_RATE_LIMIT: requests per minute per API key, unless the key sets its own. */
  apiRateLimitPerMinute: number;
  /** ACE_SETUP_TOKEN: a setup token chosen by the operator (containers, CI) instead of a generated one. */
  setupToken: string | null;
  /** ACE_AUDIT_IP_DAYS: audit entries lose their IP address after this many days. */
  auditIpDays: number;
  /** ACE_SESSION_DAYS: a session not used for this long ends. */
  sessionDays: number;
}

const list = (text: string) =>
  text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);

const hostName = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

const variables = z.object({
  ACE_AUTH: setting(oneOf(AUTH_MODES), AUTH_DEFAULTS.mode),
  ACE_ALLOWED_HOSTS: setting(
    z.string().transform((text, ctx): readonly string[] | "any" => {
      const hosts = list(text).map((host) => host.toLowerCase().replace(/^\[(.*)\]$/, "$1"));
      if (hosts.includes("*")) return "any";
      for (const host of hosts) {
        if (!hostName.test(host) && !normalizeIp(host)) {
          ctx.addIssue({ code: "custom", message: `has "${host}", which is not a host name (no scheme, port or path)`, input: text });
          return z.NEVER;
        }
      }
      return hosts;
    }),
    DEFAULT_ALLOWED_HOSTS as readonly string[],
  ),
  ACE_TRUSTED_PROXIES: setting(
    z.string().transform((text, ctx) => {
      try {
        return new AddressSet(list(text));
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `has ${(error as Error).message}`, input: text });
        return z.NEVER;
      }
    }),
    null,
  ),
  ACE_SECRET: setting(z.string().min(32, { error: "must be at least 32 characters (e.g. openssl rand -base64 32)" }), null),
  ACE_API_RATE_LIMIT: setting(wholeNumber(1, 10_000_000), AUTH_DEFAULTS.apiRateLimitPerMinute),
  ACE_SETUP_TOKEN: setting(z.string().min(24, { error: "must be at least 24 characters" }).max(200), null),
  ACE_AUDIT_IP_DAYS: setting(wholeNumber(1, 36_500), AUTH_DEFAULTS.auditIpDays),
  ACE_SESSION_DAYS: setting(wholeNumber(1, 365), AUTH_DEFAULTS.sessionDays),
});

const HINTS: Record<keyof typeof variables.shape, string> = {
  ACE_AUTH: 'Unset it to use "auto".',
  ACE_ALLOWED_HOSTS: "List the names the studio is reached by, comma-separated, e.g. ace.example.com,localhost.",
  ACE_TRUSTED_PROXIES: "List your reverse proxies' addresses, e.g. 127.0.0.1,10.0.0.0/8.",
  ACE_SECRET: "",
  ACE_API_RATE_LIMIT: `Unset it to use ${AUTH_DEFAULTS.apiRateLimitPerMinute} requests a minute.`,
  ACE_SETUP_TOKEN: "Unset it to have the server print a generated one.",
  ACE_AUDIT_IP_DAYS: `Unset it to use ${AUTH_DEFAULTS.auditIpDays}.`,
  ACE_SESSION_DAYS: `Unset it to use ${AUTH_DEFAULTS.sessionDays}.`,
};

/** Never repeated in a message: they are secrets. */
const SECRET_VARIABLES = new Set(["ACE_SECRET", "ACE_SETUP_TOKEN"]);

export function loadAuthSettings(source: EnvSource = process.env): AuthSettings {
  const parsed = variables.safeParse(source);
  if (!parsed.success) {
    const shown = (name: string, raw: string) => (SECRET_VARIABLES.has(name) ? null : quotedValue(raw));
    throw settingsError(parsed.error.issues.map((issue) => describeIssue(issue, source, HINTS, shown)));
  }
  const v = parsed.data;
  return Object.freeze({
    mode: v.ACE_AUTH,
    allowedHosts: v.ACE_ALLOWED_HOSTS,
    trustedProxies: v.ACE_TRUSTED_PROXIES ?? new AddressSet([]),
    secret: v.ACE_SECRET,
    apiRateLimitPerMinute: v.ACE_API_RATE_LIMIT,
    setupToken: v.ACE_SETUP_TOKEN,
    auditIpDays: v.ACE_AUDIT_IP_DAYS,
    sessionDays: v.ACE_SESSION_DAYS,
  });
}

const globalForAuth = globalThis as typeof globalThis & { __aceAuthSettings?: AuthSettings };

/** This process's settings, read once (tests set their own with setAuthSettings). */
export function getAuthSettings(): AuthSettings {
  globalForAuth.__aceAuthSettings ??= loadAuthSettings();
  return globalForAuth.__aceAuthSettings;
}

/** Replaces this process's settings (tests); undefined reads the environment again on next use. */
export function setAuthSettings(settings: AuthSettings | undefined): void {
  globalForAuth.__aceAuthSettings = settings;
}
