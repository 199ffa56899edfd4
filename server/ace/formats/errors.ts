// How every playbook parser reports a problem: where it is (a 1-based line, or a JSON path) and
// what is wrong, in words a person can act on. Also the small helpers the parsers share for that.
import type { PlaybookFormat } from "../document";
import { findIllFormed } from "../well-formed";

export interface PlaybookParseErrorInit {
  /** The format being parsed; "auto" when no format could be recognised. */
  format: PlaybookFormat | "auto";
  problem: string;
  line?: number;
  column?: number;
  path?: string;
}

/**
 * Messages read `Line 12: <problem>`, `Line 3, column 9: <problem>` or `<json path>: <problem>`,
 * e.g. `skills["abc-00001"].helpful: expected a whole number ≥ 0, found "3"`.
 */
export class PlaybookParseError extends Error {
  override readonly name = "PlaybookParseError";
  readonly format: PlaybookFormat | "auto";
  readonly line?: number;
  readonly column?: number;
  readonly path?: string;
  readonly problem: string;

  constructor(init: PlaybookParseErrorInit) {
    const where = locationOf(init);
    super(where ? `${where}: ${init.problem}` : init.problem);
    this.format = init.format;
    this.problem = init.problem;
    if (init.line !== undefined) this.line = init.line;
    if (init.column !== undefined) this.column = init.column;
    if (init.path !== undefined) this.path = init.path;
  }
}

/**
 * A playbook that cannot be written in the format asked for (an id or a section name the format
 * cannot hold). The message names what is in the way and which formats keep it.
 */
export class PlaybookExportError extends Error {
  override readonly name = "PlaybookExportError";

  constructor(
    readonly format: PlaybookFormat,
    message: string,
  ) {
    super(message);
  }
}

function locationOf({ line, column, path }: PlaybookParseErrorInit): string | null {
  if (line !== undefined) return column === undefined ? `Line ${line}` : `Line ${line}, column ${column}`;
  return path ?? null;
}

/** The one wording for a bad helpful/harmful/neutral count, in every format. */
export const EXPECTED_COUNT = "expected a whole number ≥ 0";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** JavaScript-style path without a leading `$`: `skills["abc-00001"].helpful`, `sections.X[2]`; the root is `$`. */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "number") path += `[${segment}]`;
    else if (typeof segment === "string" && IDENTIFIER.test(segment)) path += path ? `.${segment}` : segment;
    else path += `[${JSON.stringify(String(segment))}]`;
  }
  return path || "$";
}

/** A quoted, escaped excerpt, so invisible or multi-line text stays readable in a message. */
export function quote(text: string, maxLength = 80): string {
  const chars = Array.from(text);
  return JSON.stringify(chars.length > maxLength ? `${chars.slice(0, maxLength).join("")}…` : text);
}

/** The "found …" part of a message. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (typeof value === "string") return quote(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return String(value);
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * JSON.parse, with a failure reported at its line and column; and JSON a playbook cannot hold (a
 * \u0000 or a lone \ud800 escape, nesting deeper than MAX_JSON_DEPTH) refused at its JSON path.
 */
export function parseJsonText(text: string, format: PlaybookParseErrorInit["format"]): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const { offset, problem } = findJsonSyntaxError(text);
    throw new PlaybookParseError({ format, problem: `not valid JSON: ${problem}`, ...lineAndColumn(text, offset) });
  }
  const illFormed = findIllFormed(value);
  if (illFormed) {
    const shown = illFormed.path.length > 8 ? [...illFormed.path.slice(0, 8), "…"] : illFormed.path;
    throw new PlaybookParseError({ format, path: jsonPath(shown), problem: illFormed.problem });
  }
  return value;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lastBreak = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: offset - lastBreak };
}

class JsonStop {
  constructor(readonly offset: number) {}
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON_ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/**
 * Engines word JSON.parse failures differently and often leave out the position, so this small
 * scanner walks the grammar to find where the text stops being JSON.
 */
export function findJsonSyntaxError(text: string): { offset: number; problem: string } {
  let i = 0;
  const stop = (): never => {
    throw new JsonStop(i);
  };
  const skipSpace = () => {
    while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  };
  const expect = (char: string) => {
    if (text.charAt(i) !== char) stop();
    i++;
  };
  const scanString = () => {
    i++;
    for (;;) {
      const char = text.charAt(i);
      if (i >= text.length || char < " ") stop();
      if (char === '"') {
        i++;
        return;
      }
      if (char !== "\\") {
        i++;
        continue;
      }
      JSON_ESCAPE.lastIndex = i;
      if (!JSON_ESCAPE.test(text)) stop();
      i = JSON_ESCAPE.lastIndex;
    }
  };
  const scanList = (close: string, scanItem: () => void) => {
    i++;
    skipSpace();
    let first = true;
    while (text.charAt(i) !== close) {
      if (!first) expect(",");
      first = false;
      scanItem();
      skipSpace();
    }
    i++;
  };
  const scanValue = (): void => {
    skipSpace();
    const char = text.charAt(i);
    if (char === "{") {
      scanList("}", () => {
        skipSpace();
        if (text.charAt(i) !== '"') stop();
        scanString();
        skipSpace();
        expect(":");
        scanValue();
      });
    } else if (char === "[") scanList("]", scanValue);
    else if (char === '"') scanString();
    else {
      const word = ["true", "false", "null"].find((w) => text.startsWith(w, i));
      if (word) {
        i += word.length;
        return;
      }
      JSON_NUMBER.lastIndex = i;
      if (!JSON_NUMBER.test(text)) stop();
      i = JSON_NUMBER.lastIndex;
    }
  };
  try {
    scanValue();
    skipSpace();
    if (i < text.length) stop();
  } catch (caught) {
    if (!(caught instanceof JsonStop)) throw caught;
    const at = caught.offset;
    const found = text.codePointAt(at);
    return {
      offset: at,
      problem: found === undefined ? "the text ends too early" : `unexpected ${quote(String.fromCodePoint(found))}`,
    };
  }
  return { offset: text.length, problem: "the text is not a single JSON value" };
}

/** "a", "a and b", "a, b and c", or the first few "and N more": for naming lines or ids in one sentence. */
export function listInWords(items: readonly string[], max = 6): string {
  const shown = items.slice(0, max);
  const more = items.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${more} more`;
  if (shown.length <= 1) return shown[0] ?? "";
  return `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}`;
}
