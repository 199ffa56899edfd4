import { describe, expect, it } from "vitest";
import {
  BUILT_IN_KINDS,
  createRedactor,
  ibanValid,
  looksPersonal,
  luhnValid,
  redactText,
  redactValue,
  ssnValid,
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

// ---- Provider tokens, JWTs, encoded segments, object keys, SSNs ------------------------------------

const secretOnly = (text: string) => redact(text, ["secret"]);
/** A key of ACE Studio's shape: ace_, 13 and 52 lowercase base32 characters (server/apikeys). */
const ACE_KEY = "ace_" + "k3mzq7rvx2pab" + "_" + "n4t5w6y7z2a3b4c5d6e7f2g3h4i5j6k7l2m3n4o5p6q7r2s3t4u5";
const base64url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const jwtOf = (header: object, payload: object, signature = "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c") =>
  `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}.${signature}`;
const JWT = jwtOf({ alg: "HS256", typ: "JWT" }, { sub: "1234567890", name: "John Doe", iat: 1516239022 });
const SLACK_TOKEN = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy";
const STRIPE_KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

describe("provider tokens", () => {
  const tokens = {
    "ACE Studio API key": ACE_KEY,
    "Google API key": "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
    "Slack bot token": SLACK_TOKEN,
    "Slack user token": "xoxp-333333333578-11111111191-811111111114-efa0f2a6c3e1b4d5a6f7e8d9c0b1a2f3",
    "Slack app-level token": "xapp-1-A01BC2DE3FG-1234567890123-0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    "Slack webhook URL": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "Stripe live secret key": STRIPE_KEY,
    "Stripe test secret key": "sk_test_51H8xYzAbCdEfGhIjKlMnOpQrStUv",
    "Stripe live restricted key": "rk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUv",
    "Stripe test restricted key": "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "npm token": "npm_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ",
  };
  it.each(Object.entries(tokens))("replaces a %s, in a sentence, quoted and as a value", (_, token) => {
    expect(secretOnly(`use ${token} now`).text).toBe("use [REDACTED:secret] now");
    expect(secretOnly(`{"credential": "${token}"}`).text).toBe('{"credential": "[REDACTED:secret]"}');
    expect(secretOnly(`X_TOKEN=${token}`).counts).toEqual({ secret: 1 });
  });
  it("leaves look-alikes: wrong lengths, other alphabets, placeholders, previews and publishable keys", () => {
    for (const text of [
      ACE_KEY.slice(0, -1), // one character short
      ACE_KEY.toUpperCase(), // not base32 as the studio writes it
      ACE_KEY.replace("k3m", "k1m"), // 1 is not a base32 digit
      "ace_k3mzq7rvx2pab_…u5", // the preview the keys page shows
      "ace_tools and ace_playbook_settings",
      "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBW", // 34 characters after AIza
      "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWYZ", // 36
      "xoxb-your-bot-token-here",
      "xoxb_17653672481_19874698323",
      "sk_live_your_secret_key_here",
      "sk_test_abc123",
      "pk_live_4eC39HqLyjWDarjtT1zdp7dc", // publishable: meant to be public
      "npm_config_registry and npm_package_version",
      "npm_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXy", // 35
      "https://hooks.slack.com/",
    ]) {
      expect(secretOnly(text).text, text).toBe(text);
    }
  });
});

describe("JSON Web Tokens", () => {
  it("replaces three base64url parts whose header is JSON naming an alg, also unsigned or encrypted", () => {
    expect(secretOnly(`session ${JWT}.`).text).toBe("session [REDACTED:secret].");
    expect(secretOnly(`id_token: ${JWT}`).text).toBe("id_token: [REDACTED:secret]");
    expect(secretOnly(jwtOf({ alg: "none" }, { sub: "1" }, "")).text).toBe("[REDACTED:secret]");
    const jwe = `${base64url(JSON.stringify({ alg: "RSA-OAEP", enc: "A256GCM" }))}.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGeipsEdY3mx_etLbbWSrFr05kLzcSr4qKAq7YN7e9jwQRb23nfa6c9d-StnImGyFDbSv04uVuxIp5Zms1gNxKKK2Da14B8S4rzVRltdYwam_lDp5XnZAYpQdb76FdIKLaVmqgfwX7XWRxv2322i-vDxRfqNzo_tETKzpVLzfiwQyeyPGLBIO56YJ7eObdv0je81860ppamavo35UgoRdbYaBcoh9QcfylQr66oc6vFWXRcZ_ZT2LawVCWTIy3brGPi6UklfCpIMfIjf7iGdXKHzg.48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A.XFBoMYUZodetZdvTiFvSkQ`;
    expect(secretOnly(`token ${jwe} end`).text).toBe("token [REDACTED:secret] end");
  });
  it("leaves dotted names and three parts whose header is not JSON with an alg", () => {
    for (const text of [
      jwtOf({ typ: "JWT" }, { sub: "1" }), // no alg
      jwtOf({ alg: 256 }, { sub: "1" }), // alg not a string
      `${base64url('["alg"]')}.${base64url('{"sub":"1"}')}.abc`, // header not an object
      "eyewitnesses.example.com",
      "keyboard.layout.settings",
      "eyJhbGciOiJIUzI1NiJ9x.eyJzdWIiOiIxIn0.abc", // the header does not decode
    ]) {
      expect(secretOnly(text).text, text).toBe(text);
    }
  });
});

describe("Basic credentials", () => {
  it("replaces the base64 of user:password after Basic and keeps the scheme", () => {
    expect(secretOnly(`Authorization: Basic ${btoa("admin:hunter2")}`).text).toBe("Authorization: Basic [REDACTED:secret]");
  });
  it("leaves the word basic before ordinary words", () => {
    for (const text of ["a basic question", "basic understanding of refunds", `basic ${btoa("no colon in here")}`]) {
      expect(secretOnly(text).text, text).toBe(text);
    }
  });
});

describe("encoded segments", () => {
  it("replaces a whole URL-encoded value that decodes to a secret, keeping the rest of the URL", () => {
    const inner = "https://api.example.com/v1?api_key=Zq8xK2vLp9Rt4Wm7Yb3N&limit=10";
    expect(secretOnly(`GET /cb?redirect=${encodeURIComponent(inner)}&step=2`).text).toBe("GET /cb?redirect=[REDACTED:secret]&step=2");
    expect(secretOnly(`next=${encodeURIComponent(`Bearer ${"sk-proj-Ab3dE6gH9iJ2kL5mN8oP1qR4sT7uV0wX3yZ6"}`)}`).text).toBe(
      "next=[REDACTED:secret]",
    );
    // Twice encoded
    expect(secretOnly(`u=${encodeURIComponent(encodeURIComponent(`token=${JWT}`))}`).text).toBe("u=[REDACTED:secret]");
  });
  it("replaces a whole base64 or base64url segment that decodes to a secret, also inside a path or a URL-encoded value", () => {
    const config = "OPENAI_API_KEY=sk-proj-Ab3dE6gH9iJ2kL5mN8oP1qR4sT7uV0wX3yZ6\nREGION=eu";
    expect(secretOnly(`config: ${btoa(config)} (from the vault)`).text).toBe("config: [REDACTED:secret] (from the vault)");
    expect(secretOnly(`state=${base64url(JSON.stringify({ slack: SLACK_TOKEN }))}`).text).toBe("state=[REDACTED:secret]");
    expect(secretOnly(`/oauth/callback/${base64url(`token: ${ACE_KEY}`)}/done`).text).toBe("/oauth/callback/[REDACTED:secret]/done");
    expect(secretOnly(`q=${encodeURIComponent(btoa(config))}`).text).toBe("q=[REDACTED:secret]");
  });
  it("counts a replaced segment once, as the kind of its first finding, and finds other kinds when they are on", () => {
    const { text, counts } = redact(`blob ${btoa("mail jane@example.com, key AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY")}`);
    expect(text).toBe("blob [REDACTED:secret]");
    expect(counts).toEqual({ secret: 1 });
    expect(redact(`to=${encodeURIComponent("jane.doe@example.com")}`, ["email"]).text).toBe("to=[REDACTED:email]");
    expect(redact(`to=${encodeURIComponent("jane.doe@example.com")}`, ["secret"]).text).toBe("to=jane.doe%40example.com");
  });
  it("leaves encoded text without findings, binary data, broken escapes and long words", () => {
    for (const text of [
      "search?q=refund%20policy%20for%20orders&page=2",
      "99.5 % of orders, 100%25 sure, 50%off",
      "broken %E0%A4%A escape and %ZZ",
      `note ${btoa("Refund the order within 30 days of delivery.")}`,
      `image ${btoa(String.fromCharCode(...Array.from({ length: 96 }, (_, index) => (index * 37 + 11) % 256)))}`,
      "internationalization customer_support_agent_v2 aGVsbG8gd29ybGQ",
      "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ]) {
      expect(redact(text).text, text).toBe(text);
    }
  });
});

describe("secrets used as object keys", () => {
  it("replaces a key with a finding, numbers keys that redact alike and keeps their values and the other keys", () => {
    const counts: RedactionCounts = {};
    const fields: string[] = [];
    const value = redactValue(
      {
        [STRIPE_KEY]: { plan: "pro" },
        [ACE_KEY]: "second",
        "[REDACTED:secret]#2": "a key already spelled like a mark",
        region: "eu",
      },
      createRedactor(["secret"]),
      counts,
      "metadata",
      fields,
    );
    expect(value).toEqual({
      "[REDACTED:secret]": { plan: "pro" },
      "[REDACTED:secret]#3": "second",
      "[REDACTED:secret]#2": "a key already spelled like a mark",
      region: "eu",
    });
    expect(counts).toEqual({ secret: 2 });
    expect(fields).toEqual(["metadata.[REDACTED:secret]", "metadata.[REDACTED:secret]#3"]);
  });
  it("redacts a key and its value each by what they hold, at any depth, and keeps a __proto__ key as data", () => {
    const counts: RedactionCounts = {};
    const fields: string[] = [];
    const value = redactValue(
      JSON.parse(`{"users": {"jane@example.com": {"key": "${ACE_KEY}"}}, "__proto__": {"x": 1}}`),
      all,
      counts,
      "metadata",
      fields,
    ) as Record<string, unknown>;
    expect(value).toEqual({ users: { "[REDACTED:email]": { key: "[REDACTED:secret]" } }, ["__proto__"]: { x: 1 } });
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(fields).toEqual(["metadata.users.[REDACTED:email]", "metadata.users.[REDACTED:email].key"]);
    const keyAndValue: string[] = [];
    redactValue({ [ACE_KEY]: `copy of ${ACE_KEY}` }, all, {}, "metadata", keyAndValue);
    expect(keyAndValue).toEqual(["metadata.[REDACTED:secret]"]);
    expect(counts).toEqual({ email: 1, secret: 1 });
  });
});

describe("US social security numbers", () => {
  it("replaces numbers in the 3-2-4 shape with dashes or spaces when the switch is on", () => {
    expect(redact("SSN 123-45-6789, or 234 56 7890.", ["ssn"]).text).toBe("SSN [REDACTED:ssn], or [REDACTED:ssn].");
    expect(redact("SSN 123-45-6789").text).toBe("SSN [REDACTED:ssn]");
  });
  it("leaves numbers never issued and other shapes", () => {
    expect(ssnValid("123", "45", "6789")).toBe(true);
    for (const text of [
      "000-12-3456",
      "666-12-3456",
      "900-12-3456",
      "999-12-3456",
      "123-00-4567",
      "123-45-0000",
      "123-45 6789", // mixed separators
      "123456789",
      "1123-45-6789",
      "123-45-67890",
      "415-555-0100",
      "ISBN 978-1-56619-909-4",
      "2026-11-26",
      "v123-45-6789",
    ]) {
      expect(redact(text, ["ssn"]).text, text).toBe(text);
    }
  });
  it("are off unless the setting turns them on, and a custom pattern may still be named ssn", () => {
    expect([...redactorFor(redactionSettingsSchema.parse({})).kinds]).not.toContain("ssn");
    expect([...redactorFor(redactionSettingsSchema.parse({ ssns: true })).kinds]).toContain("ssn");
    expect(redactionSettingsSchema.safeParse({ customPatterns: [{ name: "ssn", pattern: "[0-9]{9}" }] }).success).toBe(true);
    expect(patternProblem("[0-9]{9}")).toBeNull();
  });
});

describe("cost", () => {
  it("stays linear on long runs built to make the new detectors backtrack or decode again and again", () => {
    const inputs = [
      "ey".repeat(200_000), // one long run that starts like a JWT header
      "eyJhbGciOiJIUzI1NiJ9.".repeat(20_000), // header after header, never a whole token
      "xoxb-".repeat(80_000),
      "%41".repeat(130_000), // escapes that decode to a base64 run
      "a%".repeat(200_000), // percent signs that are not escapes
      "aaaaaaaaaaaaaaaa/".repeat(24_000), // a path of base64-length parts
      `${"1".repeat(3)}-${"2".repeat(2)}-`.repeat(50_000), // SSN starts that never end
      btoa("x".repeat(300_000)), // base64 of readable text, decoded whole
    ];
    for (const input of inputs) {
      const started = performance.now();
      redactText(input, all, {});
      expect(performance.now() - started, input.slice(0, 30)).toBeLessThan(5_000);
    }
  });
});
