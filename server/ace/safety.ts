// Model output is untrusted input: what a model writes can end up in a playbook, and a playbook is
// pasted into the next agent's prompt. sanitizeModelText cleans text before it is stored;
// detectPromptInjection names the signs of an attempt to steer the agent that will read it, on the
// text as written and after undoing obfuscations (./injection). The rules aim at few false positives:
// ordinary advice ("Ignore empty rows when parsing CSV", "Never print API keys in logs") must pass.

import type { DeltaOperation, Finding } from "./delta/types";
import { decodedSegments } from "./injection/decode";
import { fold, readings, STEP_LABELS, type NormalisationStep, type Reading } from "./injection/normalize";
import { INJECTION_RULES, isNegated, type InjectionKind, type InjectionRule } from "./injection/rules";

// ---- invisible characters ---------------------------------------------------------------------

/**
 * Characters that render as nothing yet reach the model: zero-width spaces and joiners, bidi
 * embeddings, overrides and isolates, word joiner and invisible operators, the byte order mark,
 * soft hyphen, Mongolian vowel separator, and the Unicode "tag" and supplementary variation
 * selector blocks that can spell out a whole hidden ASCII message. Removing ZWJ splits joined
 * emoji into their parts, which is acceptable for playbook text.
 */
const HIDING_CHARACTERS = "\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}";
const INVISIBLE = new RegExp(`[\\u00AD\\u180E${HIDING_CHARACTERS}]`, "gu");
// C0 controls except \t and \n (a lone \r is turned into \n first), DEL and the C1 controls.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/gu;

export interface SanitizeOptions {
  /** Longest result in UTF-16 code units; a longer text is cut and ends with "…". */
  maxLength: number;
}

/** Line breaks normalised to \n, control and invisible characters removed, trimmed, length-capped. */
export function sanitizeModelText(text: string, { maxLength }: SanitizeOptions): string {
  const cleaned = text
    .replace(/\r\n?|[\u2028\u2029]/gu, "\n")
    .replace(CONTROL, "")
    .replace(INVISIBLE, "")
    .trim();
  return truncate(cleaned, maxLength);
}

function truncate(text: string, maxLength: number): string {
  const limit = Math.max(0, Math.floor(maxLength));
  if (text.length <= limit) return text;
  if (limit === 0) return "";
  let cut = text.slice(0, limit - 1);
  // Never leave half a surrogate pair behind.
  if (/[\uD800-\uDBFF]$/u.test(cut)) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}…`;
}

// ---- prompt injection ------------------------------------------------------------------------

export { INJECTION_KINDS, type InjectionKind } from "./injection/rules";

export interface InjectionFinding {
  kind: InjectionKind;
  /** Which rule matched, e.g. "override.discard-instructions" (stable, for tests and logs). */
  rule: string;
  /** The matched phrase as the rule read it (after the steps in revealedBy), whitespace collapsed. */
  phrase: string;
  /** The phrase with some context, invisible characters shown as \u escapes. */
  excerpt: string;
  /** The normalising and decoding steps that revealed it, in order; [] when it reads so as written. */
  revealedBy: NormalisationStep[];
  /** A sentence a reviewer can act on. */
  message: string;
}

const MAX_FINDINGS = 20;
const MAX_DEPTH = 2;

/**
 * Signs of prompt injection in the text, in order of appearance (by reading); [] for ordinary text.
 * Each rule reports once, from the first reading that shows it: as written, then after each
 * normalising step, then inside URL- or base64-encoded segments (decoded up to two levels deep).
 */
export function detectPromptInjection(text: string): InjectionFinding[] {
  const found: (InjectionFinding & { at: number; order: number })[] = [];
  const reported = new Set<string>();
  scan(text, [], 0, found, reported);
  found.sort((a, b) => a.order - b.order || a.at - b.at);
  return found.slice(0, MAX_FINDINGS).map(({ at: _at, order: _order, ...finding }) => finding);
}

function scan(
  text: string,
  decodedBy: NormalisationStep[],
  depth: number,
  found: (InjectionFinding & { at: number; order: number })[],
  reported: Set<string>,
): void {
  const all = readings(text);
  for (const [order, reading] of all.entries()) {
    const folded = fold(reading.text);
    const lower = folded.toLowerCase();
    const otherScripts = OTHER_SCRIPTS.test(lower);
    for (const rule of INJECTION_RULES) {
      if (reported.has(rule.id) || !reads(rule, reading, decodedBy) || (rule.reads === "native" && !otherScripts)) continue;
      if (!rule.gates.every((gate) => gate.test(lower))) continue;
      const pattern = reading.compact && rule.compact ? rule.compact : rule.pattern;
      const source = rule.reads === "raw" ? reading.text : rule.reads === "any" ? folded : lower;
      // Show the phrase with its case when lower-casing kept every position.
      const shown = source === lower && lower.length === folded.length ? folded : source;
      for (const match of source.matchAll(pattern)) {
        if (rule.accept && !rule.accept(match, source)) continue;
        if (rule.negatable && isNegated(source, match.index, match[0].length, rule.reads)) continue;
        // Patterns anchored on a line or sentence start match the break before it; the finding starts after it.
        const leading = /^[\s.!?。！？]*/u.exec(match[0])?.[0].length ?? 0;
        const at = match.index + leading;
        const length = match[0].length - leading;
        reported.add(rule.id);
        found.push({
          kind: rule.kind,
          rule: rule.id,
          phrase: clip(
            showInvisible(shown.slice(at, at + length))
              .replace(/\s+/gu, " ")
              .trim(),
            PHRASE_MAX,
          ),
          excerpt: excerptAround(shown, at, length),
          revealedBy: [...decodedBy, ...reading.steps],
          message: rule.message,
          at,
          order: decodedBy.length * 100 + order,
        });
        break;
      }
    }
  }
  if (depth >= MAX_DEPTH) return;
  // Encoded segments are looked for once invisible characters are gone and compatibility forms folded.
  const base = all.filter((reading) => reading.scripts === "all").at(-1) ?? all[0];
  for (const segment of decodedSegments(base?.text ?? text)) {
    scan(segment.text, [...decodedBy, ...(base?.steps ?? []), segment.how], depth + 1, found, reported);
  }
}

/** Letters of the scripts the native rules read: Cyrillic, Arabic, Devanagari, Bengali, kana and Han. */
const OTHER_SCRIPTS = /[\u0400-\u04FF\u0600-\u06FF\u0900-\u09FF\u3040-\u30FF\u3400-\u9FFF\uF900-\uFAFF]/u;

function reads(rule: InjectionRule, reading: Reading, decodedBy: readonly NormalisationStep[]): boolean {
  switch (rule.reads) {
    case "raw":
      return reading.steps.length === 0 && decodedBy.length === 0;
    case "any":
      return true;
    case "latin":
      return reading.scripts !== "native";
    case "native":
      return reading.scripts !== "latin";
  }
}

const PHRASE_MAX = 120;
const EXCERPT_CONTEXT = 30;
const EXCERPT_MAX = 160;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function excerptAround(text: string, at: number, length: number): string {
  const start = Math.max(0, at - EXCERPT_CONTEXT);
  const end = Math.min(text.length, at + length + EXCERPT_CONTEXT);
  const visible = showInvisible(text.slice(start, end)).replace(/\s+/gu, " ").trim();
  const clipped = clip(visible, EXCERPT_MAX);
  return `${start > 0 ? "…" : ""}${clipped}${end < text.length && clipped === visible ? "…" : ""}`;
}

function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

const KIND_LABELS: Record<InjectionKind, string> = {
  instruction_override: "instruction override",
  role_marker: "role marker",
  hidden_text: "hidden text",
  data_exfiltration: "data exfiltration",
  secret_request: "request for secrets",
  policy_override: "policy override",
};

/** "found after base64-decoded, then digits and symbols for letters" — or "" when found as written. */
export function describeReveal(steps: readonly NormalisationStep[]): string {
  return steps.length === 0 ? "" : `, found after: ${steps.map((step) => STEP_LABELS[step]).join(", then ")}`;
}

/** The operation's text a reader of the playbook would see: bullet content and section names. */
function operationTexts(operation: DeltaOperation): string[] {
  const texts: string[] = [];
  if ("content" in operation && typeof operation.content === "string") texts.push(operation.content);
  if (operation.type === "add_section" && typeof operation.name === "string") texts.push(operation.name);
  if (operation.type === "rename_section" && typeof operation.name === "string") texts.push(operation.name);
  return texts;
}

/**
 * Prompt-injection findings per operation of a delta, for the reviewer: content that reads like
 * instructions to the agent. A warning, and one that always sends the delta to a person
 * (REVIEW_KINDS in server/deltas/findings.ts). The engine never finds these; the curator's runs
 * and the approval queue add them.
 */
export function injectionFindings(operations: readonly DeltaOperation[]): Finding[][] {
  return operations.map((operation, operationIndex) =>
    operationTexts(operation)
      .flatMap((text) => detectPromptInjection(text))
      .map((found): Finding => ({
        operationIndex,
        severity: "warning",
        kind: "prompt_injection",
        message: `Operation ${operationIndex + 1} (${operation.type}): ${found.message} (${KIND_LABELS[found.kind]}: “${found.phrase}”${describeReveal(found.revealedBy)}). Read it before approving.`,
        injection: { kind: found.kind, phrase: found.phrase, revealedBy: found.revealedBy },
      })),
  );
}
