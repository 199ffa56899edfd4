// Text and JSON the databases cannot store, found before anything is written: a lone surrogate (half
// of a UTF-16 pair; PostgreSQL's jsonb refuses it), a NUL character (PostgreSQL text cannot hold
// U+0000), and JSON nested so deep that storing or walking it fails. Each is named by its path in
// the input, so a request can be refused with a 400 that says which field to fix.

/** Deeper than any input of the studio needs; PostgreSQL and the format parsers handle it easily. */
export const MAX_JSON_DEPTH = 64;

export interface IllFormed {
  /** Where, as a path from the input's root: ["traces", 0, "metadata", "a"]. */
  path: (string | number)[];
  kind: "lone_surrogate" | "nul" | "too_deep";
  /** What is wrong and what to do, without the path: "has a NUL character (U+0000) at character 3, …". */
  problem: string;
  /** The path and the problem: a sentence naming the field. */
  message: string;
}

/** Where NUL characters may stand: everywhere (true), nowhere (false), or at the paths the test accepts. */
export type NulAllowance = boolean | ((path: readonly (string | number)[]) => boolean);

export interface WellFormedOptions {
  /**
   * NUL characters are allowed where the caller replaces them (trace ingestion does, in an agent's
   * text); default refused. A name is looked up before it is stored, so it never may hold one.
   */
  allowNul?: NulAllowance;
  maxDepth?: number;
}

// With the u flag a well-formed surrogate pair is one code point, so \p{Surrogate} matches only a lone half.
const LONE_SURROGATE = /\p{Surrogate}/u;

/** The first lone surrogate in the text, as its index, or -1. */
export function loneSurrogateAt(text: string): number {
  return LONE_SURROGATE.exec(text)?.index ?? -1;
}

/** A dotted path, cut after a few levels when the input nests deeper: traces.0.metadata.a.a.a.… */
export function describePath(path: readonly (string | number)[], keep = 8): string {
  if (path.length === 0) return "the input";
  const shown = path.slice(0, keep).map(String).join(".");
  return path.length > keep ? `${shown}.…` : shown;
}

function position(text: string, index: number): string {
  const before = text.slice(0, index);
  const line = before.split("\n").length;
  return line > 1 ? `line ${line}, character ${index - before.lastIndexOf("\n")}` : `character ${index + 1}`;
}

/** What is wrong with a text, in words without its path, or null. */
export function textProblemOf(
  text: string,
  { allowNul = false }: { allowNul?: boolean } = {},
): { kind: IllFormed["kind"]; problem: string } | null {
  const surrogate = loneSurrogateAt(text);
  if (surrogate >= 0) {
    const unit = text.charCodeAt(surrogate).toString(16).toUpperCase();
    return {
      kind: "lone_surrogate",
      problem:
        `has a lone surrogate (\\u${unit}) at ${position(text, surrogate)}, half of a character that is not text on its own ` +
        "(text cut in the middle of an emoji, for example). Send well-formed text.",
    };
  }
  const nul = allowNul ? -1 : text.indexOf("\u0000");
  if (nul >= 0)
    return { kind: "nul", problem: `has a NUL character (U+0000) at ${position(text, nul)}, which cannot be stored. Remove it.` };
  return null;
}

/** What is wrong with one string (a value, or a key when `key` is set), or null. */
function textProblem(text: string, path: (string | number)[], allowNul: boolean, key: boolean): IllFormed | null {
  const found = textProblemOf(text, { allowNul });
  if (!found) return null;
  const where = `${describePath(path)}${key ? ` (the key ${JSON.stringify(text.slice(0, 40))})` : ""}`;
  return { path, ...found, message: `${where}: ${found.problem}` };
}

/**
 * The first problem in a JSON-like value (strings, keys and nesting), walked without recursion so
 * that a value nested thousands deep is reported, not a stack overflow. Null when it is fine.
 */
export function findIllFormed(value: unknown, options: WellFormedOptions = {}): IllFormed | null {
  const allowance = options.allowNul ?? false;
  const allowNul = (path: (string | number)[]) => (typeof allowance === "function" ? allowance(path) : allowance);
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const stack: { value: unknown; path: (string | number)[]; key: boolean }[] = [{ value, path: [], key: false }];
  while (stack.length > 0) {
    const { value: current, path, key } = stack.pop() as (typeof stack)[number];
    if (key) {
      const problem = textProblem(String(path.at(-1)), path, allowNul(path), true);
      if (problem) return problem;
    }
    if (typeof current === "string") {
      const problem = textProblem(current, path, allowNul(path), false);
      if (problem) return problem;
      continue;
    }
    if (typeof current !== "object" || current === null || current instanceof Date) continue;
    if (path.length >= maxDepth) {
      const problem = `is nested more than ${maxDepth} levels deep. Flatten it.`;
      return { path, kind: "too_deep", problem, message: `${describePath(path)}: ${problem}` };
    }
    const entries: [string | number, unknown][] = Array.isArray(current)
      ? current.map((item, index) => [index, item])
      : current instanceof Map
        ? [...current.entries()].map(([name, item]) => [String(name), item])
        : Object.entries(current);
    // Pushed in reverse so the first problem in reading order is found first.
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const [name, item] = entries[index] as [string | number, unknown];
      stack.push({ value: item, path: [...path, name], key: typeof name === "string" });
    }
  }
  return null;
}
