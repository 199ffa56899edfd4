// Custom redaction patterns: checked when saved (RE2 syntax, no empty match), compiled once per
// pattern text and reused by every ingest.
import { RE2JS } from "re2js";
import { BUILT_IN_KINDS, type CompiledPattern } from "./detectors";

export const MAX_CUSTOM_PATTERNS = 20;
export const MAX_PATTERN_CHARS = 1_000;
export const PATTERN_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

const problems = new Map<string, string | null>();

/** Why RE2 refuses a pattern, in words a person can act on; null when the pattern can be used. */
export function patternProblem(pattern: string): string | null {
  // Stored settings are parsed on every ingest: each pattern text is checked once.
  if (problems.has(pattern)) return problems.get(pattern) ?? null;
  const problem = checkPattern(pattern);
  if (problems.size > 1_000) problems.clear();
  problems.set(pattern, problem);
  return problem;
}

function checkPattern(pattern: string): string | null {
  if (pattern.length === 0) return "is empty.";
  if (pattern.length > MAX_PATTERN_CHARS) return `has more than ${MAX_PATTERN_CHARS.toLocaleString("en")} characters.`;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    if (/\\[1-9]|\\k</.test(pattern))
      return "uses a backreference (\\1, \\k<name>), which RE2 does not support: it would need backtracking.";
    if (/\(\?<?[=!]/.test(pattern)) return "uses lookahead or lookbehind ((?=, (?!, (?<=, (?<!), which RE2 does not support.";
    const reason = error instanceof Error ? error.message.replace(/^error parsing regexp: /, "") : String(error);
    return `is not a valid RE2 regular expression: ${reason}.`;
  }
  if (compiled.matcher("").find()) return "matches the empty string, so it would match everywhere; make it require at least one character.";
  return null;
}

const compiledPatterns = new Map<string, RE2JS>();

/** Compiled once per pattern text (a small cache: patterns are a few per playbook). */
export function compilePatterns(patterns: readonly { name: string; pattern: string }[]): CompiledPattern[] {
  return patterns.flatMap(({ name, pattern }) => {
    let regex = compiledPatterns.get(pattern);
    if (!regex) {
      if (patternProblem(pattern) !== null) return [];
      regex = RE2JS.compile(pattern);
      if (compiledPatterns.size > 1_000) compiledPatterns.clear();
      compiledPatterns.set(pattern, regex);
    }
    return [{ name, regex }];
  });
}

/**
 * Kinds a custom pattern cannot be named after. A kind added after custom patterns existed (ssn) is
 * not among them: a playbook may have saved a pattern under that name, and its settings must still
 * read; such a pattern's matches mean the same and count with the kind's.
 */
const RESERVED_NAMES: readonly string[] = BUILT_IN_KINDS.filter((kind) => kind !== "ssn");

/** Why a custom pattern's name cannot be used; null when it can. */
export function patternNameProblem(name: string): string | null {
  if (!PATTERN_NAME.test(name))
    return "is 1 to 40 lowercase letters, digits, - or _, starting with a letter (it appears as [REDACTED:name]).";
  if (RESERVED_NAMES.includes(name)) return `is a built-in kind; choose another name than ${RESERVED_NAMES.join(", ")}.`;
  return null;
}
