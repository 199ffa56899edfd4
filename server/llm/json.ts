// Reads a model's answer as JSON and checks it against a zod schema. The answer is untrusted input:
// this never throws, and its errors say what was wrong in words a person can act on.
import type { ZodType, core } from "zod";
import { pluralWord } from "@/server/ace/text/format";
import type { ParsedAnswer } from "./types";

const MAX_ISSUES = 5;
/** Bounds the brace scan on long prose answers; a real answer has its object near the start. */
const MAX_OBJECT_STARTS = 50;

/**
 * Parses `raw` as JSON, tolerating what chat models wrap around it: ```json fences, and prose
 * before or after a single JSON object. `schemaName` ("reflection") makes the errors specific.
 */
export function parseModelJson<T>(raw: string, schema: ZodType<T>, schemaName?: string): ParsedAnswer<T> {
  const json = extractJson(raw);
  if (!json.ok) return json;
  const result = schema.safeParse(json.value);
  if (result.success) return { ok: true, value: result.data };
  const what = schemaName ? `the ${schemaName} schema` : "the expected schema";
  return { ok: false, error: `The model's answer does not match ${what}: ${describeIssues(result.error.issues)}` };
}

/** The JSON value in a model's answer. */
export function extractJson(raw: string): ParsedAnswer<unknown> {
  const text = raw.trim();
  if (text === "") return { ok: false, error: "The model's answer is empty." };

  const whole = tryParse(text);
  if (whole.ok) return whole;

  const candidates: string[] = [];
  const fence = /```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/.exec(text);
  if (fence?.[1]?.trim()) candidates.push(fence[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    const parsed = tryParse(candidate);
    if (parsed.ok) return parsed;
  }
  // Prose that itself holds braces ("use {name} here") defeats first-to-last: try each balanced object.
  for (const candidate of balancedObjects(text)) {
    const parsed = tryParse(candidate);
    if (parsed.ok) return parsed;
  }

  // Report the error of the most JSON-looking candidate: positions there are what the model wrote.
  const best = candidates[0] ?? text;
  const error = tryParse(best);
  const reason = error.ok ? "unknown error" : error.error;
  const hint = first === -1 ? " (it contains no JSON object)" : "";
  return { ok: false, error: `The model's answer is not JSON${hint}: ${reason}` };
}

function tryParse(text: string): ParsedAnswer<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** Substrings from a "{" to its matching "}", skipping braces inside JSON strings. */
function* balancedObjects(text: string): Generator<string> {
  let starts = 0;
  for (let start = text.indexOf("{"); start !== -1 && starts < MAX_OBJECT_STARTS; start = text.indexOf("{", start + 1)) {
    starts++;
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === "\\") i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === "{") depth++;
      else if (c === "}" && --depth === 0) {
        yield text.slice(start, i + 1);
        break;
      }
    }
  }
}

/** "bulletTags.0.tag: expected one of helpful|harmful|neutral; reasoning: missing (expected string)". */
export function describeIssues(issues: readonly core.$ZodIssue[]): string {
  const flat = flattenUnions(issues);
  const parts = flat.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.map(String).join(".") : "(the whole answer)";
    return `${path}: ${describeIssue(issue)}`;
  });
  if (flat.length > MAX_ISSUES) parts.push(`and ${flat.length - MAX_ISSUES} more`);
  return parts.join("; ");
}

/**
 * A union that matched no option reports, for the option the answer came closest to (fewest
 * issues), what was wrong with it: "operations.0.content: missing" beats "matches no option".
 */
function flattenUnions(issues: readonly core.$ZodIssue[]): core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== "invalid_union" || issue.errors.length === 0) return [issue];
    const closest = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
    if (closest.length === 0) return [issue];
    return flattenUnions(closest.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
  });
}

function describeIssue(issue: core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_value":
      return `expected one of ${issue.values.map(String).join("|")}`;
    case "invalid_type":
      if (/received undefined$/.test(issue.message)) return `missing (expected ${issue.expected})`;
      break;
    case "unrecognized_keys":
      return `unexpected ${pluralWord(issue.keys.length, "property", "properties")} ${issue.keys.join(", ")}`;
    case "invalid_union":
      if ("options" in issue && issue.options?.length) return `expected one of ${issue.options.map(String).join("|")}`;
      return "matches none of the allowed shapes";
  }
  // zod's own messages start with a category ("Invalid input: ", "Too big: "); the detail is enough.
  return issue.message.replace(/^[A-Z][a-z]+(?: [a-z]+)?: /, "");
}
