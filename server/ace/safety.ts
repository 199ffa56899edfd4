// Model output is untrusted input: what a model writes can end up in a playbook, and a playbook is
// pasted into the next agent's prompt. sanitizeModelText cleans text before it is stored;
// detectPromptInjection names the signs of an attempt to steer the agent that will read it.
// The patterns aim at few false positives: ordinary advice ("Ignore empty rows when parsing CSV",
// "Never print API keys in logs") must pass, so each pattern needs an unmistakable shape.

import type { DeltaOperation, Finding } from "./delta/types";

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

export const INJECTION_KINDS = ["instruction_override", "role_marker", "hidden_text", "secret_exfiltration"] as const;
export type InjectionKind = (typeof INJECTION_KINDS)[number];

export interface InjectionFinding {
  kind: InjectionKind;
  /** The matched text with some context, whitespace collapsed, invisible characters shown as \u escapes. */
  excerpt: string;
  /** A sentence a reviewer can act on. */
  message: string;
}

interface Rule {
  kind: InjectionKind;
  pattern: RegExp;
  message: string;
  /** Advice that forbids the act ("never send your password to …") is not an attack. */
  skipWhenNegated?: boolean;
  /** Extra test on the match, for shapes a regex cannot say alone. */
  accept?: (match: RegExpExecArray) => boolean;
}

const INSTRUCTIONS =
  "(?:instructions?|prompts?|rules|directions|directives|guidelines|guidance|messages|context|constraints|commands|orders)";
const EARLIER = "(?:previous|prior|above|earlier|preceding|foregoing|original|initial|system|developer|old)";
const SECRET =
  "(?:api[ _-]?keys?|secret(?:[ _-]?keys?)?|secrets|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|credentials|passwords?|private[ _-]?keys?|env(?:ironment)?[ _-]?variables|\\.env(?:\\s+file)?|ssh keys?|session (?:tokens?|cookies?))";

const RULES: readonly Rule[] = [
  {
    kind: "instruction_override",
    // "ignore all previous instructions", "disregard the system prompt", "forget your prior rules".
    pattern: new RegExp(
      `\\b(?:ignore|disregard|forget|bypass|override|do not (?:follow|obey)|don't (?:follow|obey)|stop following)\\s+(?:(?:all|any|each|every|of|the|your|my|these|those|its|their)\\s+){0,3}${EARLIER}\\s+(?:(?:system|safety|user)\\s+)?${INSTRUCTIONS}\\b`,
      "giu",
    ),
    message: "Tells the model to ignore or override the instructions it was given.",
  },
  {
    kind: "instruction_override",
    // "ignore your instructions", "disregard all rules" (without "previous").
    pattern: new RegExp(`\\b(?:ignore|disregard|forget)\\s+(?:all\\s+(?:of\\s+)?)?(?:your|all)\\s+(?:own\\s+)?${INSTRUCTIONS}\\b`, "giu"),
    message: "Tells the model to ignore its instructions.",
  },
  {
    kind: "instruction_override",
    pattern:
      /\b(?:you are now|from now on,? you are|act as|pretend (?:to be|you are))\s+(?:an?\s+)?(?:DAN\b|jailbroken|unrestricted|unfiltered|uncensored|in developer mode|developer mode|evil)/giu,
    message: "Tries to give the model a new, unrestricted persona.",
  },
  {
    kind: "instruction_override",
    pattern: /(?:^|\n)[ \t>*_-]*(?:new|updated|real|actual) (?:system )?(?:instructions|system prompt|rules)\s*:/giu,
    message: "Announces replacement instructions for the model.",
  },
  {
    kind: "role_marker",
    // Chat-template special tokens of ChatML, Llama 3 and friends.
    pattern: /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>/giu,
    message: "Contains a chat-template token that can fake a new message with another role.",
  },
  {
    kind: "role_marker",
    pattern: /\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|system_prompt|sys)>/gu,
    message: "Contains an instruction or system marker of a chat template.",
  },
  {
    kind: "role_marker",
    // "system:" / "assistant:" / "developer:" opening a line, as a transcript would start a turn.
    pattern: /(?:^|\n)[ \t>*_#]*(?:system|assistant|developer)[ \t*_]*:/giu,
    message: "Starts a line with a role name, as if a new system or assistant message began.",
  },
  {
    kind: "role_marker",
    // "### Instruction", "## System prompt:" as a header of its own (not "## SYSTEM DESIGN NOTES").
    pattern: /(?:^|\n)[ \t]*#{1,6}[ \t]*(?:new[ \t]+)?(?:instructions?|system(?:[ \t]+prompt)?)[ \t]*:?[ \t]*(?=\n|$)/giu,
    message: 'Contains an instruction-template header ("### Instruction") that can start a fake prompt.',
  },
  {
    kind: "hidden_text",
    pattern: new RegExp(`[${HIDING_CHARACTERS}]+`, "gu"),
    message: "Contains invisible characters (zero-width, bidi override or tag characters) that can hide text from a reviewer.",
  },
  {
    kind: "hidden_text",
    // The generator's own `<!-- bullet_ids: [...] -->` citation comment (ids.ts) is not hidden text.
    pattern: /<!--(?!\s*bullet_ids:)([\s\S]{0,1000}?)-->/gu,
    message: "Hides instructions in an HTML comment that a rendered view would not show.",
    accept: (match) =>
      /\b(?:ignore|disregard|instructions?|system prompt|prompt|assistant|you (?:must|should|are|will)|do not (?:tell|mention|reveal|show)|api[ _-]?keys?|passwords?|secrets?|credentials|tokens?|execute|exfiltrate)\b/iu.test(
        match[1] ?? "",
      ),
  },
  {
    kind: "hidden_text",
    // A long run of the base64 alphabet with upper case, lower case and digits (so not hex or a word).
    pattern: /[A-Za-z0-9+/]{200,}={0,2}/gu,
    message: "Contains a long base64 blob that can smuggle encoded instructions past a reviewer.",
    accept: (match) => /[A-Z]/u.test(match[0]) && /[a-z]/u.test(match[0]) && /\d/u.test(match[0]),
  },
  {
    kind: "secret_exfiltration",
    // "send the API key to https://…", "post your credentials to attacker@example.com".
    pattern: new RegExp(
      `\\b(?:send|post|upload|e-?mail|leak|exfiltrate|transmit|forward|disclose|submit|copy)\\b[^.\\n]{0,60}?\\b${SECRET}[^.\\n]{0,60}?\\b(?:to|at|into)\\s+(?:https?://|www\\.|[\\w.+-]+@[\\w-]+\\.|(?:an?|the|this|my|our)\\s+(?:external|remote|webhook|url|server|endpoint|address)|webhook)`,
      "giu",
    ),
    message: "Asks to send secrets (API keys, passwords, tokens) to an outside address.",
    skipWhenNegated: true,
  },
  {
    kind: "secret_exfiltration",
    // "reveal your system prompt", "print all API keys", "dump the environment variables".
    pattern: new RegExp(
      `\\b(?:reveal|print|show|output|repeat|display|dump|leak|disclose|tell me|give me|list)\\s+(?:me\\s+)?(?:(?:your|the|all|all of your|all the|any)\\s+(?:(?:hidden|secret|initial|original|full|stored)\\s+)?(?:system prompt|system message|hidden instructions|initial instructions|original instructions|developer message)|(?:your|all|all of your|all the|every)\\s+(?:stored\\s+)?${SECRET}|(?:the\\s+)?contents? of (?:the\\s+)?(?:\\.env|environment|process\\.env|~/\\.ssh|id_rsa))`,
      "giu",
    ),
    message: "Asks the model to reveal its system prompt or stored secrets.",
    skipWhenNegated: true,
  },
  {
    kind: "secret_exfiltration",
    // A shell command that ships a secret from the environment to some host.
    pattern: /\b(?:curl|wget|fetch|Invoke-WebRequest)\b[^\n]{0,200}\$\{?[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASS)\b/gu,
    message: "Contains a command that sends a secret from the environment over the network.",
  },
];

const NEGATION =
  /\b(?:never|not|don't|dont|do not|avoid|without|no|refuse to|must not|mustn't|shouldn't|should not|cannot|can't)\b[^.\n]*$/iu;
const MAX_FINDINGS = 20;

/** Signs of prompt injection in the text, in order of appearance; [] for ordinary text. */
export function detectPromptInjection(text: string): InjectionFinding[] {
  const found: (InjectionFinding & { at: number })[] = [];
  const seen = new Set<string>();
  for (const rule of RULES) {
    for (const match of text.matchAll(rule.pattern)) {
      if (rule.accept && !rule.accept(match)) continue;
      if (rule.skipWhenNegated && isNegated(text, match.index)) continue;
      // Patterns anchored on a line start match the "\n" before the line; the finding starts after it.
      const leading = /^\n*/u.exec(match[0])?.[0].length ?? 0;
      const at = match.index + leading;
      const key = `${rule.kind}:${at}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ kind: rule.kind, excerpt: excerptAround(text, at, match[0].length - leading), message: rule.message, at });
    }
  }
  found.sort((a, b) => a.at - b.at);
  return found.slice(0, MAX_FINDINGS).map(({ kind, excerpt, message }) => ({ kind, excerpt, message }));
}

/** The sentence before the match says "never", "do not", "avoid" …, so the text forbids the act. */
function isNegated(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 80), at);
  const sentence = before.split(/[.!?;\n]/u).at(-1) ?? "";
  return NEGATION.test(sentence);
}

const EXCERPT_CONTEXT = 30;
const EXCERPT_MAX = 160;

function excerptAround(text: string, at: number, length: number): string {
  const start = Math.max(0, at - EXCERPT_CONTEXT);
  const end = Math.min(text.length, at + length + EXCERPT_CONTEXT);
  const visible = showInvisible(text.slice(start, end)).replace(/\s+/gu, " ").trim();
  const clipped = visible.length > EXCERPT_MAX ? `${visible.slice(0, EXCERPT_MAX - 1)}…` : visible;
  return `${start > 0 ? "…" : ""}${clipped}${end < text.length && clipped === visible ? "…" : ""}`;
}

function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u{${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`);
}

/**
 * Prompt-injection findings per operation of a delta, for the reviewer: model-written content that
 * reads like instructions to the agent. The engine never finds these; the curator's runs and the
 * approval queue add them.
 */
export function injectionFindings(operations: readonly DeltaOperation[]): Finding[][] {
  return operations.map((operation, operationIndex) => {
    const text = "content" in operation && typeof operation.content === "string" ? operation.content : "";
    return detectPromptInjection(text).map((found): Finding => ({
      operationIndex,
      severity: "warning",
      kind: "prompt_injection",
      message: `Operation ${operationIndex + 1} (${operation.type}): ${found.message} (“${found.excerpt}”). Read it before approving.`,
    }));
  });
}
