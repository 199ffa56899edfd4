// Finds personal data and secrets in a trace's text and replaces each with its kind, e.g.
// [REDACTED:email]. Built-in detectors are fixed, bounded regular expressions checked by a validator
// (Luhn, mod 97, entropy, a JWT's header); custom patterns run on RE2 (re2js), so no pattern can hang
// ingestion. URL-encoded and base64 segments are decoded and checked too.
import { RE2JS } from "re2js";

export const BUILT_IN_KINDS = ["secret", "card", "email", "phone", "iban", "ssn"] as const;
export type BuiltInKind = (typeof BUILT_IN_KINDS)[number];

/** A custom pattern compiled once: its kind is the name it was saved under. */
export interface CompiledPattern {
  name: string;
  regex: RE2JS;
}

export interface Redactor {
  kinds: ReadonlySet<BuiltInKind>;
  custom: CompiledPattern[];
}

/** Counts per kind: built-in kinds and custom pattern names. */
export type RedactionCounts = Record<string, number>;

export const redactedMark = (kind: string) => `[REDACTED:${kind}]`;

// ---- Validators ------------------------------------------------------------------------------

/** The Luhn checksum of a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let index = digits.length - 1; index >= 0; index--) {
    let digit = digits.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
  }
  return sum % 10 === 0;
}

/** ISO 13616: the country and check digits moved to the end, letters as 10–35, the whole mod 97 is 1. */
export function ibanValid(compact: string): boolean {
  if (compact.length < 15 || compact.length > 34) return false;
  const moved = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of moved) {
    const code = char.charCodeAt(0);
    const value = code <= 57 ? code - 48 : code - 55;
    remainder = value > 9 ? (remainder * 100 + value) % 97 : (remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

/** Shannon entropy in bits per character. */
export function entropyBits(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** Text a person or program wrote: no control, format, private-use or unassigned characters besides tab and line ends. */
const READABLE = /^(?:[\t\n\r]|\P{C})*$/u;

/**
 * The readable text that base64 or base64url encodes (padding optional), or null when the input is
 * not base64 or decodes to bytes that are not readable UTF-8 text: binary data holds nothing to find.
 */
export function decodeBase64(encoded: string): string | null {
  const standard = encoded.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
  if (standard.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(standard)) return null;
  // Most runs (words, ids, hashes, binary data) are not text: their first six bytes tell, at little cost.
  if (standard.length > PREFIX_CHARS && !TEXT_BYTES.test(atob(standard.slice(0, PREFIX_CHARS)))) return null;
  let binary: string;
  try {
    binary = atob(standard);
  } catch {
    return null;
  }
  if (ASCII_TEXT.test(binary)) return binary;
  if (!TEXT_BYTES.test(binary)) return null;
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return null;
  }
  return READABLE.test(text) ? text : null;
}

/** Base64 characters whose bytes are checked before a run is decoded whole (6 bytes). */
const PREFIX_CHARS = 8;

/**
 * Bytes (atob's one character per byte) shaped like UTF-8 text: no control bytes, lead and
 * continuation bytes in order; the last character may be cut off (as in a prefix of the text).
 */
const TEXT_BYTES = /^(?:[\t\n\r\x20-\x7E]|[\xC2-\xDF][\x80-\xBF]|[\xE0-\xEF][\x80-\xBF]{2}|[\xF0-\xF4][\x80-\xBF]{3})*[\x80-\xF4]{0,3}$/;
const ASCII_TEXT = /^[\t\n\r\x20-\x7E]*$/;

/** A JWT's first part: base64url of a JSON object that names its algorithm (RFC 7515 §4.1.1, RFC 7516 §4.1.1). */
export function isJwtHeader(part: string): boolean {
  const json = decodeBase64(part);
  if (json === null) return false;
  try {
    const header: unknown = JSON.parse(json);
    return typeof header === "object" && header !== null && typeof (header as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

/** US social security numbers never issued: area 000, 666 or 900–999, group 00, serial 0000 (SSA rules). */
export function ssnValid(area: string, group: string, serial: string): boolean {
  return area !== "000" && area !== "666" && area[0] !== "9" && group !== "00" && serial !== "0000";
}

/** Values that look random but are not secrets: ids, dates and times the studio itself shows. */
const NOT_A_SECRET = [
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, // UUID
  /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/i, // ISO date or date-time
  /^[a-z]{2,12}-\d{1,12}$/i, // a bullet id such as str-00001
];

// ---- Built-in detectors ----------------------------------------------------------------------
// Each runs only when its trigger occurs in the string, and every repetition is bounded, so a
// detector's cost is linear in the string's length.

interface Detector {
  kind: BuiltInKind;
  /** Cheap test: without it the regular expression is not run. */
  trigger: (text: string) => boolean;
  regex: RegExp;
  /** The replacement of one match, or null to leave it as it is. */
  replace: (match: string, groups: string[]) => string | null;
}

const hasDigitRun = (length: number) => {
  const run = new RegExp(`\\d(?:[ .()-]{0,2}\\d){${length - 1}}`);
  return (text: string) => run.test(text);
};

/** Key shapes of the first expression, checked case-sensitively on what the case-insensitive expression found. */
const KEY_SHAPES = /^(?:sk-|gh[pousr]_|github_pat_|(?:AKIA|ASIA)[0-9A-Z]{16}$)/;

/** Without one of these the secret detector cannot match. */
const SECRET_KEYWORD = /sk-|gh[pousr]_|github_pat_|AKIA|ASIA|bearer|-----BEGIN|key|token|secret|passw|pwd/i;

const PAIR_NAMES =
  "api[_-]?key|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|" +
  "access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|token|secret|key|password|passwd|pwd";

const SECRETS: Detector = {
  kind: "secret",
  trigger: (text) => SECRET_KEYWORD.test(text),
  regex: new RegExp(
    [
      // 1: a PEM private key block (to the end of the string when its END line was cut off)
      String.raw`(-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|$))`,
      // 2: provider key shapes: OpenAI sk-… and sk-proj-…, Anthropic sk-ant-…, GitHub, AWS access key ids
      String.raw`(?<![A-Za-z0-9_-])(sk-[A-Za-z0-9_-]{20,400}|gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255}|(?:AKIA|ASIA)[0-9A-Z]{16})(?![A-Za-z0-9_-])`,
      // 3, 4: Authorization: Bearer <token>
      String.raw`\b(bearer\s{1,10})([A-Za-z0-9._~+/-]{12,4096}=*)`,
      // 5, 6: key=value, token: value, "password": "value" …
      String.raw`(?<![A-Za-z0-9])((?:${PAIR_NAMES})["']?[ \t]{0,5}[=:][ \t]{0,5}["']?)([^\s"'&,;<>{}\[\]()-][^\s"'&,;<>{}\[\]()]{3,4095})`,
    ].join("|"),
    "gi",
  ),
  replace: (match, groups) => {
    const [pem, shaped, bearer, bearerToken, pairName, pairValue] = groups;
    if (pem) return redactedMark("secret");
    // The expression is case-insensitive; key shapes are not.
    if (shaped) return KEY_SHAPES.test(shaped) ? redactedMark("secret") : null;
    if (bearer && bearerToken) return entropyBits(bearerToken) >= 3 ? bearer + redactedMark("secret") : null;
    if (pairName && pairValue) {
      if (NOT_A_SECRET.some((shape) => shape.test(pairValue))) return null;
      const isPassword = /^(?:password|passwd|pwd)/i.test(pairName);
      // A password is a secret whatever it looks like; other values only when they look random.
      const random = pairValue.length >= 16 && entropyBits(pairValue) >= 3.5 && /\d/.test(pairValue) && /[A-Za-z]/.test(pairValue);
      if (isPassword || random) return pairName + redactedMark("secret");
      // The pair took the text from the key shapes: a key of a known shape in the value is still one.
      const inside = runDetector(pairValue, SECRETS, {});
      return inside === pairValue ? null : pairName + inside;
    }
    return null;
  },
};

/**
 * Tokens whose documented shape starts with a fixed prefix: ACE Studio's own API keys
 * (server/apikeys), Google API keys, Slack tokens and webhook URLs, Stripe secret and restricted
 * keys, npm access tokens. Case-sensitive, and apart from the other secrets so text without a
 * prefix skips it.
 */
const PROVIDER_TOKENS: Detector = {
  kind: "secret",
  trigger: (text) => /\bace_|AIza|xox|xapp-|hooks\.slack|[rs]k_(?:live|test)_|\bnpm_/.test(text),
  regex: new RegExp(
    String.raw`(?<![A-Za-z0-9_-])(?:ace_[a-z2-7]{13}_[a-z2-7]{52}|AIza[0-9A-Za-z_-]{35}|(?:xox[abeoprs]|xapp)-[0-9A-Za-z-]{10,250}|` +
      String.raw`https?://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,250}|[rs]k_(?:live|test)_[0-9A-Za-z]{20,247}|npm_[0-9A-Za-z]{36})(?![A-Za-z0-9_-])`,
    "g",
  ),
  // Slack's tokens hold their team and user ids, which are numbers; a placeholder does not.
  replace: (match) => (/^(?:xox|xapp)/.test(match) && (!/\d/.test(match) || entropyBits(match) < 3) ? null : redactedMark("secret")),
};

/** Authorization: Basic <base64 of user:password>; the scheme is kept. */
const BASIC_CREDENTIALS: Detector = {
  kind: "secret",
  trigger: (text) => /basic\s/i.test(text),
  regex: /\b(basic\s{1,10})([A-Za-z0-9+/]{8,4096}={0,2})(?![A-Za-z0-9+/=_-])/gi,
  replace: (match, [scheme, credential]) => (decodeBase64(credential!)?.includes(":") ? scheme + redactedMark("secret") : null),
};

const EMAILS: Detector = {
  kind: "email",
  trigger: (text) => text.includes("@"),
  // The local part is bounded (RFC 5321: 64 characters), so a long word without @ costs little.
  regex:
    /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
  replace: () => redactedMark("email"),
};

const IBANS: Detector = {
  kind: "iban",
  trigger: hasDigitRun(2),
  regex: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])/g,
  replace: (match) => {
    // The groups may run on into a following word in capitals: try shorter ends at a space.
    for (let end = match.length; end >= 15; end = match.lastIndexOf(" ", end - 1)) {
      if (ibanValid(match.slice(0, end).replace(/ /g, ""))) return redactedMark("iban") + match.slice(end);
    }
    return null;
  },
};

/** Card numbers start with a card network's digits: Visa 4, Mastercard 51–55 and 22–27, Amex 34/37, Diners and JCB 30/36/38/35, Discover 6. */
const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[0-8]|6)/;

const CARDS: Detector = {
  kind: "card",
  trigger: hasDigitRun(13),
  regex: /(?<![\d.-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
  replace: (match) => {
    const digits = match.replace(/[ -]/g, "");
    return CARD_PREFIX.test(digits) && luhnValid(digits) ? redactedMark("card") : null;
  },
};

const PHONES: Detector = {
  kind: "phone",
  trigger: hasDigitRun(7),
  regex: new RegExp(
    [
      // International: +44 20 7946 0958, +1 (415) 555-0100, +33612345678
      String.raw`(?<![\w+])\+\d{1,3}(?:[ .-]?\(\d{1,4}\))?(?:[ .-]?\d{1,5}){1,6}(?![\w-])`,
      // North American: (415) 555-0100, 415-555-0100, 415.555.0100
      String.raw`(?<![\w.+-])(?:\(\d{3}\)\s?|\d{3}[ .-])\d{3}[ .-]\d{4}(?![\w-]|\.\d)`,
      // National with a trunk 0: 020 7946 0958, 01 23 45 67 89, 06-12-34-56-78
      String.raw`(?<![\w.+-])0\d(?:[ .-]\d{2}){4}(?![\w-]|\.\d)|(?<![\w.+-])0\d{2,4} \d{3,4} ?\d{3,4}(?![\w-]|\.\d)`,
    ].join("|"),
    "g",
  ),
  replace: (match) => {
    const digits = match.replace(/\D/g, "").length;
    return digits >= 9 && digits <= 15 ? redactedMark("phone") : null;
  },
};

/** US social security numbers written with dashes or spaces (123-45-6789); nine bare digits are too often something else. */
const SSNS: Detector = {
  kind: "ssn",
  trigger: hasDigitRun(9),
  regex: /(?<![\w.+-])(\d{3})([ -])(\d{2})\2(\d{4})(?![\w-]|\.\d)/g,
  replace: (match, [area, , group, serial]) => (ssnValid(area!, group!, serial!) ? redactedMark("ssn") : null),
};

/**
 * A JSON Web Token, or a JWE's five parts: base64url parts whose header is JSON naming an alg. Apart
 * from the other secrets so that text without a word starting like a header ("ey", "ew": base64 of
 * `{"`, `{ ` or `{\n`) skips it.
 */
const JWTS: Detector = {
  kind: "secret",
  trigger: (text) => /\be[wy][A-Za-z0-9_-]{8}/.test(text),
  regex:
    /(?<![A-Za-z0-9_-])e[wy][A-Za-z0-9_-]{8,4096}\.[A-Za-z0-9_-]{2,16384}\.[A-Za-z0-9_-]{0,4096}(?:\.[A-Za-z0-9_-]{0,16384}\.[A-Za-z0-9_-]{0,4096})?(?![A-Za-z0-9_-])/g,
  replace: (match) => (isJwtHeader(match.slice(0, match.indexOf("."))) ? redactedMark("secret") : null),
};

/** Secrets first (a key may hold digits a card would take), then emails before phones. */
const DETECTORS: readonly Detector[] = [SECRETS, PROVIDER_TOKENS, JWTS, BASIC_CREDENTIALS, EMAILS, IBANS, CARDS, SSNS, PHONES];

// ---- Redacting -------------------------------------------------------------------------------

export function createRedactor(kinds: Iterable<BuiltInKind>, custom: CompiledPattern[] = []): Redactor {
  return { kinds: new Set(kinds), custom };
}

export function isRedactorEmpty(redactor: Redactor): boolean {
  return redactor.kinds.size === 0 && redactor.custom.length === 0;
}

const add = (counts: RedactionCounts, kind: string, count = 1) => {
  counts[kind] = (counts[kind] ?? 0) + count;
};

function runDetector(text: string, detector: Detector, counts: RedactionCounts): string {
  if (!detector.trigger(text)) return text;
  detector.regex.lastIndex = 0;
  return text.replace(detector.regex, (...args: unknown[]) => {
    const match = args[0] as string;
    // Groups come after the match and before the offset (a number).
    const groups: string[] = [];
    for (let index = 1; index < args.length && typeof args[index] !== "number"; index++) groups.push(args[index] as string);
    const replaced = detector.replace(match, groups);
    if (replaced === null) return match;
    add(counts, detector.kind);
    return replaced;
  });
}

function runCustom(text: string, pattern: CompiledPattern, counts: RedactionCounts): string {
  const matcher = pattern.regex.matcher(text);
  let result = "";
  let from = 0;
  let found = 0;
  while (matcher.find()) {
    const start = matcher.start();
    const end = matcher.end();
    // Empty matches are refused when the pattern is saved; skip one anyway rather than loop.
    if (end === start) continue;
    result += text.slice(from, start) + redactedMark(pattern.name);
    from = end;
    found++;
  }
  if (found === 0) return text;
  add(counts, pattern.name, found);
  return result + text.slice(from);
}

/**
 * Up to 15 letters or underscores (most metadata keys and many values): no built-in detector can
 * match it (each needs a digit, a sign or at least 16 characters), so it is skipped at once.
 */
const PLAIN_WORD = /^[A-Za-z_]{0,15}$/;

/** The text with every finding replaced by its kind; counts gains one per finding. */
export function redactText(text: string, redactor: Redactor, counts: RedactionCounts): string {
  if (redactor.custom.length === 0 && PLAIN_WORD.test(text)) return text;
  return redactAt(text, redactor, counts, 0);
}

function redactAt(text: string, redactor: Redactor, counts: RedactionCounts, depth: number): string {
  let result = text;
  for (const detector of DETECTORS) {
    if (redactor.kinds.has(detector.kind)) result = runDetector(result, detector, counts);
  }
  for (const pattern of redactor.custom) result = runCustom(result, pattern, counts);
  return depth < MAX_DECODING_DEPTH ? redactEncoded(result, redactor, counts, depth) : result;
}

// ---- Encoded segments ------------------------------------------------------------------------
// A secret sent URL-encoded (a redirect's query) or in base64 (a Basic header, a config blob) is
// found by decoding each segment and running the same detectors on what it holds. A finding
// replaces the whole segment: a part of an encoding would still decode to most of the secret.

/** Decoded inside decoded at most this deep: base64 inside a URL-encoded value is found. */
const MAX_DECODING_DEPTH = 2;

/** Characters of a URL-encoded segment: RFC 3986 unreserved, `+` (a space in form data) and `%`. */
const URL_CHARS = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+%-") URL_CHARS[char.charCodeAt(0)] = 1;
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/g;
const PERCENT_ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;
/** Characters of base64 and base64url: their value plus one (0: not base64). */
const BASE64_CHARS = new Uint8Array(128);
[..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"].forEach(
  (char, value) => (BASE64_CHARS[char.charCodeAt(0)] = value + 1),
);
BASE64_CHARS["-".charCodeAt(0)] = 63;
BASE64_CHARS["_".charCodeAt(0)] = 64;

/** Whether the first two bytes a base64 run encodes can start UTF-8 text; most words and ids fail here, before any decoding. */
function startsLikeText(text: string, start: number): boolean {
  const value = (offset: number) => BASE64_CHARS[text.charCodeAt(start + offset)]! - 1;
  const first = (value(0) << 2) | (value(1) >> 4);
  const second = ((value(1) & 15) << 4) | (value(2) >> 2);
  const control = (byte: number) => (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13) || byte === 127;
  if (control(first) || (first >= 0x80 && first < 0xc2) || first > 0xf4) return false;
  // After an ASCII byte comes ASCII or a lead byte; after a lead byte, a continuation byte.
  return first < 0x80 ? !control(second) && (second < 0x80 || second >= 0xc2) && second <= 0xf4 : second >= 0x80 && second < 0xc0;
}
/** 16 base64 characters hold 12 bytes: shorter runs are words, ids and numbers. */
const MIN_BASE64_CHARS = 16;

const isUrlChar = (text: string, index: number) => {
  const code = text.charCodeAt(index);
  return code < 128 && URL_CHARS[code] === 1;
};
const isBase64Char = (text: string, index: number) => {
  const code = text.charCodeAt(index);
  return code < 128 && BASE64_CHARS[code] !== 0;
};

/** URL decoding as form data (`+` is a space), leaving escapes that are not UTF-8 as they are. */
function decodeUrlSegment(segment: string): string {
  return segment.replace(/\+/g, " ").replace(PERCENT_ESCAPES, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      return escapes;
    }
  });
}

/** The kind of the first finding in a decoded segment (secrets are looked for first), or null. */
function kindInside(decoded: string | null, redactor: Redactor, depth: number): string | null {
  if (decoded === null) return null;
  const found: RedactionCounts = {};
  return redactAt(decoded, redactor, found, depth + 1) === decoded ? null : (Object.keys(found)[0] ?? null);
}

/** A base64 run's replacement: its mark, or for a path of runs (…/callback/<base64>) its parts' marks; null when nothing was found. */
function base64Replacement(run: string, redactor: Redactor, counts: RedactionCounts, depth: number): string | null {
  const kind = kindInside(decodeBase64(run), redactor, depth);
  if (kind !== null) {
    add(counts, kind);
    return redactedMark(kind);
  }
  if (!run.includes("/")) return null;
  let changed = false;
  const parts = run.split("/").map((part) => {
    const partKind = part.length >= MIN_BASE64_CHARS ? kindInside(decodeBase64(part), redactor, depth) : null;
    if (partKind === null) return part;
    changed = true;
    add(counts, partKind);
    return redactedMark(partKind);
  });
  return changed ? parts.join("/") : null;
}

function redactEncoded(text: string, redactor: Redactor, counts: RedactionCounts, depth: number): string {
  let result = text;
  // URL-encoded runs, found from their escapes: text without a % costs one search.
  if (result.includes("%")) {
    let rebuilt = "";
    let from = 0;
    PERCENT_ESCAPE.lastIndex = 0;
    for (let match = PERCENT_ESCAPE.exec(result); match; match = PERCENT_ESCAPE.exec(result)) {
      let start = match.index;
      let end = start + 3;
      while (start > from && isUrlChar(result, start - 1)) start--;
      while (end < result.length && isUrlChar(result, end)) end++;
      const kind = kindInside(decodeUrlSegment(result.slice(start, end)), redactor, depth);
      // The search goes on after the run (a decoded segment is searched with the same expression, from 0).
      PERCENT_ESCAPE.lastIndex = end;
      if (kind === null) continue;
      add(counts, kind);
      rebuilt += result.slice(from, start) + redactedMark(kind);
      from = end;
    }
    if (from > 0) result = rebuilt + result.slice(from);
  }
  // Base64 runs, each whole with its = padding, by character table. A run of 16 holds the 16th
  // character from any point before it, so the scan looks there first and skips ahead when it is
  // not base64: prose costs a look every few characters. (A regular expression would try every
  // start inside each shorter run.) No run starts before `index`.
  let rebuilt = "";
  let from = 0;
  for (let index = 0; index + MIN_BASE64_CHARS <= result.length;) {
    const probe = index + MIN_BASE64_CHARS - 1;
    if (!isBase64Char(result, probe)) {
      index = probe + 1;
      continue;
    }
    let start = probe;
    while (start > index && isBase64Char(result, start - 1)) start--;
    let end = probe + 1;
    while (end < result.length && isBase64Char(result, end)) end++;
    index = end;
    if (end - start < MIN_BASE64_CHARS) continue;
    for (let padding = 0; padding < 2 && result.charCodeAt(index) === 61; padding++) index++; // "="
    if (!startsLikeText(result, start) && !result.slice(start, end).includes("/")) continue;
    const replacement = base64Replacement(result.slice(start, index), redactor, counts, depth);
    if (replacement === null) continue;
    rebuilt += result.slice(from, start) + replacement;
    from = index;
  }
  return from > 0 ? rebuilt + result.slice(from) : result;
}

// ---- JSON values -----------------------------------------------------------------------------

/**
 * A JSON value with every string redacted, recursively, object keys too: a key with a finding
 * becomes its mark, and keys that redact alike are numbered ([REDACTED:secret], [REDACTED:secret]#2)
 * so no value is lost. `fields` gains the path of each string or key that changed, as stored
 * (metadata.user.email, feedback.errors.2, metadata.[REDACTED:secret]).
 */
export function redactValue(value: unknown, redactor: Redactor, counts: RedactionCounts, path: string, fields: string[]): unknown {
  if (typeof value === "string") {
    const redacted = redactText(value, redactor, counts);
    if (redacted !== value) fields.push(path);
    return redacted;
  }
  if (Array.isArray(value)) return value.map((item, index) => redactValue(item, redactor, counts, `${path}.${index}`, fields));
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    const redactedKeys = entries.map(([key]) => redactText(key, redactor, counts));
    // Keys left as sent keep their names; a redacted key takes the first free number.
    const taken = new Set(entries.filter((_, index) => redactedKeys[index] === entries[index]![0]).map(([key]) => key));
    return Object.fromEntries(
      entries.map(([key, item], index) => {
        let name = redactedKeys[index]!;
        if (name === key) return [name, redactValue(item, redactor, counts, `${path}.${name}`, fields)];
        for (let number = 2; taken.has(name); number++) name = `${redactedKeys[index]}#${number}`;
        taken.add(name);
        // The key's path once, before what changed under it (a string value that changed has the same path).
        const at = fields.length;
        const redacted = redactValue(item, redactor, counts, `${path}.${name}`, fields);
        if (fields[at] !== `${path}.${name}`) fields.splice(at, 0, `${path}.${name}`);
        return [name, redacted];
      }),
    );
  }
  return value;
}

// ---- Classifying an id -----------------------------------------------------------------------

const WHOLE_EMAIL = new RegExp(`^${EMAILS.regex.source}$`);

/** An experiment unit id that is an email address or a phone number (stored as a keyed hash). */
export function looksPersonal(id: string): boolean {
  const trimmed = id.trim();
  if (WHOLE_EMAIL.test(trimmed)) return true;
  const counts: RedactionCounts = {};
  return runDetector(trimmed, PHONES, counts) === redactedMark("phone");
}
