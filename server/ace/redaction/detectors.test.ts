import { describe, expect, it } from "vitest";
import {
  BUILT_IN_KINDS,
  createRedactor,
  ibanValid,
  looksPersonal,
  luhnValid,
  redactText,
  redactValue,
  type BuiltInKind,
  type RedactionCounts,
} from "./detectors";
import { compilePatterns, patternProblem } from "./patterns";
import { redactionSettingsSchema, redactorFor } from "./settings";

const all = createRedactor(BUILT_IN_KINDS);

function redact(text: string, kinds: readonly BuiltInKind[] = BUILT_IN_KINDS) {
  const counts: RedactionCounts = {};
  return { text: redactText(text, createRedactor(kinds), counts), counts };
}

const untouched = (text: string) => expect(redact(text).text).toBe(text);

describe("emails", () => {
  it("replaces addresses with their kind", () => {
    expect(redact("write to jane.doe+ace@example.co.uk today").text).toBe("write to [REDACTED:email] today");
    expect(redact("a@b.io, X_Y@sub.domain-name.com").counts).toEqual({ email: 2 });
  });
  it("leaves what is not an address", () => {
    untouched("@mention and user@localhost and npm i @scope/pkg@1.2.3");
    untouched("a long word ".repeat(10) + "x".repeat(10_000));
  });
});

describe("phone numbers", () => {
  it("replaces international, North American and national numbers", () => {
    for (const phone of [
      "+44 20 7946 0958",
      "+1 (415) 555-0100",
      "+33612345678",
      "(415) 555-0100",
      "415-555-0100",
      "415.555.0100",
      "020 7946 0958",
      "01 23 45 67 89",
    ]) {
      expect(redact(`call ${phone} now`, ["phone"]).text, phone).toBe("call [REDACTED:phone] now");
    }
  });
  it("leaves dates, times, versions, ids and small numbers", () => {
    for (const text of [
      "2026-11-26",
      "2026-11-26T10:30:00Z",
      "10:30:00",
      "version 1.2.3",
      "42 items, 1000 rows",
      "str-00001",
      "192.168.1.10",
      "+5 points",
      "in 2026 11 people",
    ]) {
      expect(redact(text, ["phone"]).text, text).toBe(text);
    }
  });
});

describe("card numbers", () => {
  it("replaces numbers that pass Luhn, with spaces or dashes", () => {
    expect(redact("card 4111 1111 1111 1111 exp 12/28").text).toBe("card [REDACTED:card] exp 12/28");
    expect(redact("4111-1111-1111-1111").text).toBe("[REDACTED:card]");
    expect(redact("amex 378282246310005.").text).toBe("amex [REDACTED:card].");
    expect(redact("5555555555554444").counts).toEqual({ card: 1 });
  });
  it("leaves numbers that fail Luhn, and long numbers that are not cards", () => {
    expect(luhnValid("4111111111111112")).toBe(false);
    untouched("card 4111 1111 1111 1112");
    untouched("migration 20261126143332 and order 1234567890123");
  });
});

describe("IBANs", () => {
  it("replaces IBANs whose mod-97 checksum holds, compact or in groups", () => {
    expect(redact("pay DE89 3704 0044 0532 0130 00 now", ["iban"]).text).toBe("pay [REDACTED:iban] now");
    expect(redact("GB82WEST12345698765432", ["iban"]).text).toBe("[REDACTED:iban]");
    expect(redact("DE89 3704 0044 0532 0130 00 SEPA", ["iban"]).text).toBe("[REDACTED:iban] SEPA");
  });
  it("leaves look-alikes whose checksum fails", () => {
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    expect(redact("DE89 3704 0044 0532 0130 01", ["iban"]).text).toBe("DE89 3704 0044 0532 0130 01");
  });
});

describe("secrets", () => {
  it("replaces provider key shapes", () => {
    const keys = [
      "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
      "sk-proj-Ab3_dE6-gH9iJ2kL5mN8oP1qR4sT7uV0wX3yZ6",
      "sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
      "ghp_0123456789abcdefghijABCDEFGHIJ012345",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "AKIAIOSFODNN7EXAMPLE",
    ];
    for (const key of keys) expect(redact(`key is ${key} ok`, ["secret"]).text, key).toBe("key is [REDACTED:secret] ok");
  });
  it("keeps the header name of a Bearer token and the name of a key pair", () => {
    expect(redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc123", ["secret"]).text).toBe(
      "Authorization: Bearer [REDACTED:secret]",
    );
    expect(redact("curl ?api_key=Zq8xK2vLp9Rt4Wm7Yb3N&limit=10", ["secret"]).text).toBe("curl ?api_key=[REDACTED:secret]&limit=10");
    expect(redact('{"password": "hunter2!"}', ["secret"]).text).toBe('{"password": "[REDACTED:secret]"}');
  });
  it("replaces a PEM private key block, even cut off", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    expect(redact(`key:\n${pem}\ndone`, ["secret"]).text).toBe("key:\n[REDACTED:secret]\ndone");
    expect(redact("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg", ["secret"]).text).toBe("[REDACTED:secret]");
  });
  it("leaves ordinary words, low-entropy values, ids, dates and UUIDs in key pairs", () => {
    for (const text of [
      "the sk-learn docs",
      "Bearer tokens expire",
      "token=aaaaaaaaaaaaaaaaaaaa",
      "key=str-00001",
      "key: 2026-11-26T10:30:00Z",
      "token=550e8400-e29b-41d4-a716-446655440000",
      "monkey=banana",
      "akiaiosfodnn7example",
    ]) {
      expect(redact(text, ["secret"]).text, text).toBe(text);
    }
  });
});

describe("never redacted", () => {
  it("leaves bullet ids, ISO dates and times, UUIDs and small numbers alone with every kind on", () => {
    untouched('Cited [str-00001] and [cal-00042]; <!-- bullet_ids: ["str-00003"] -->');
    untouched("Ran 2026-11-26T10:30:00.000Z to 2026-11-26 11:45:12+01:00 on 2026-11-26");
    untouched("trace 550e8400-e29b-41d4-a716-446655440000 and 0190b3a5-7c1e-7000-8000-123456789abc");
    untouched("3 apples, 12 pears, 1,000 rows, 99.5 %, $42.10, port 5432");
  });
});

describe("custom patterns (RE2)", () => {
  it("replace with the pattern's name and count per name", () => {
    const redactor = createRedactor([], compilePatterns([{ name: "ticket", pattern: "TCK-[0-9]{6}" }]));
    const counts: RedactionCounts = {};
    expect(redactText("see TCK-123456 and TCK-654321", redactor, counts)).toBe("see [REDACTED:ticket] and [REDACTED:ticket]");
    expect(counts).toEqual({ ticket: 2 });
  });
  it("refuses bad syntax, backreferences, lookaround and empty matches, with the reason", () => {
    expect(patternProblem("a(")).toMatch(/not a valid RE2 regular expression: missing closing \)/);
    expect(patternProblem("(a)\\1")).toMatch(/backreference/);
    expect(patternProblem("foo(?=bar)")).toMatch(/lookahead or lookbehind/);
    expect(patternProblem("(?<!x)y")).toMatch(/lookahead or lookbehind/);
    expect(patternProblem("a*")).toMatch(/matches the empty string/);
    expect(patternProblem("")).toMatch(/empty/);
    expect(patternProblem("x{2}[a-z]+")).toBeNull();
  });
  it("runs a pattern that backtracks exponentially elsewhere in linear time", () => {
    const redactor = createRedactor([], compilePatterns([{ name: "evil", pattern: "(a+)+b" }]));
    const started = performance.now();
    expect(redactText("a".repeat(50_000) + "!", redactor, {})).toBe("a".repeat(50_000) + "!");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("settings", () => {
  it("turn secrets and cards on by default and the rest off", () => {
    const redactor = redactorFor(redactionSettingsSchema.parse({}));
    expect([...redactor.kinds].sort()).toEqual(["card", "secret"]);
    expect(redact("jane@example.com 4111111111111111", [...redactor.kinds]).text).toBe("jane@example.com [REDACTED:card]");
  });
  it("name the field of a refused pattern", () => {
    const result = redactionSettingsSchema.safeParse({
      customPatterns: [
        { name: "ok", pattern: "x" },
        { name: "bad", pattern: "(a)\\1" },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["customPatterns", 1, "pattern"]);
    expect(result.error?.issues[0]?.message).toMatch(/The pattern "bad" uses a backreference/);
    expect(redactionSettingsSchema.safeParse({ customPatterns: [{ name: "email", pattern: "x" }] }).error?.issues[0]?.message).toMatch(
      /built-in kind/,
    );
  });
});

describe("JSON values and unit ids", () => {
  it("redacts strings at any depth and names the fields that changed", () => {
    const counts: RedactionCounts = {};
    const fields: string[] = [];
    const value = redactValue({ user: { mail: "a@b.io", n: 3 }, list: ["x", "4111111111111111"] }, all, counts, "metadata", fields);
    expect(value).toEqual({ user: { mail: "[REDACTED:email]", n: 3 }, list: ["x", "[REDACTED:card]"] });
    expect(fields).toEqual(["metadata.user.mail", "metadata.list.1"]);
    expect(counts).toEqual({ email: 1, card: 1 });
  });
  it("tells personal unit ids from others", () => {
    expect(looksPersonal("jane@example.com")).toBe(true);
    expect(looksPersonal("+44 20 7946 0958")).toBe(true);
    expect(looksPersonal("user-42")).toBe(false);
    expect(looksPersonal("550e8400-e29b-41d4-a716-446655440000")).toBe(false);
  });
});
