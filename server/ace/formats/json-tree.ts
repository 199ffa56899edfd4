// JSON as a tree that keeps what JSON.parse loses: the order of every object's keys (JavaScript
// moves integer-like keys such as "42" to the front) and each number's own spelling (Python writes
// `1.0` and `-2.5e-05`, which JavaScript would print as `1` and `-0.000025`). kayba writes its
// skillbooks with Python's json.dump(indent=2, ensure_ascii=False); printTree writes that layout,
// so a skillbook read into a tree and printed again comes back byte for byte.

export type JsonNode =
  | { kind: "null" }
  | { kind: "boolean"; value: boolean }
  | { kind: "number"; text: string }
  | { kind: "string"; value: string }
  | { kind: "array"; items: JsonNode[] }
  | { kind: "object"; entries: [string, JsonNode][] }
  /** A value built to be printed, which JSON.stringify prints as Python does (see plainOf). */
  | { kind: "plain"; value: unknown };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const SPACE = /[ \t\n\r]*/y;

/**
 * The tree of a text that is valid JSON (check it with JSON.parse first: this parser assumes it
 * and only says "not JSON" without a position).
 */
export function parseTree(text: string): JsonNode {
  let at = 0;
  const fail = (): never => {
    throw new SyntaxError(`not JSON at offset ${at}`);
  };
  const skipSpace = () => {
    SPACE.lastIndex = at;
    SPACE.test(text);
    at = SPACE.lastIndex;
  };
  const token = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) fail();
    at = pattern.lastIndex;
    return (match as RegExpExecArray)[0];
  };
  const value = (): JsonNode => {
    skipSpace();
    const char = text.charAt(at);
    if (char === "{") {
      at++;
      const entries: [string, JsonNode][] = [];
      skipSpace();
      if (text.charAt(at) === "}") {
        at++;
        return { kind: "object", entries };
      }
      for (;;) {
        skipSpace();
        const key = JSON.parse(token(STRING)) as string;
        skipSpace();
        if (text.charAt(at++) !== ":") fail();
        entries.push([key, value()]);
        skipSpace();
        const next = text.charAt(at++);
        if (next === "}") return { kind: "object", entries };
        if (next !== ",") fail();
      }
    }
    if (char === "[") {
      at++;
      const items: JsonNode[] = [];
      skipSpace();
      if (text.charAt(at) === "]") {
        at++;
        return { kind: "array", items };
      }
      for (;;) {
        items.push(value());
        skipSpace();
        const next = text.charAt(at++);
        if (next === "]") return { kind: "array", items };
        if (next !== ",") fail();
      }
    }
    if (char === '"') return { kind: "string", value: JSON.parse(token(STRING)) as string };
    for (const [word, node] of [
      ["true", { kind: "boolean", value: true }],
      ["false", { kind: "boolean", value: false }],
      ["null", { kind: "null" }],
    ] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return node;
      }
    }
    return { kind: "number", text: token(NUMBER) };
  };
  const root = value();
  skipSpace();
  if (at !== text.length) fail();
  return root;
}

/** Python's json.dumps(value, indent=2, ensure_ascii=False), starting at an indentation depth. */
export function printTree(node: JsonNode, depth = 0): string {
  // What JSON.stringify prints the same is printed by it, four times as fast as the walk below.
  if (node.kind === "array" || node.kind === "object" || node.kind === "plain") {
    const plain = plainOf(node);
    if (plain !== NOT_PLAIN) return printPlain(plain, depth);
  }
  return printWalk(node, depth);
}

function printPlain(value: unknown, depth: number): string {
  const text = JSON.stringify(value, null, 2);
  return depth === 0 ? text : text.replaceAll("\n", `\n${"  ".repeat(depth)}`);
}

function printWalk(node: JsonNode, depth: number): string {
  switch (node.kind) {
    case "plain":
      return printPlain(node.value, depth);
    case "null":
      return "null";
    case "boolean":
      return String(node.value);
    case "number":
      return node.text;
    // Python and JavaScript escape the same characters (quote, backslash, controls) the same way.
    case "string":
      return JSON.stringify(node.value);
    case "array": {
      if (node.items.length === 0) return "[]";
      const inner = "  ".repeat(depth + 1);
      return `[\n${node.items.map((item) => inner + printTree(item, depth + 1)).join(",\n")}\n${"  ".repeat(depth)}]`;
    }
    case "object": {
      if (node.entries.length === 0) return "{}";
      const inner = "  ".repeat(depth + 1);
      const lines = node.entries.map(([key, value]) => `${inner}${JSON.stringify(key)}: ${printTree(value, depth + 1)}`);
      return `{\n${lines.join(",\n")}\n${"  ".repeat(depth)}}`;
    }
  }
}

export const NOT_PLAIN = Symbol("not plain");
const INDEX_LIKE = /^(?:0|[1-9]\d*)$/;

/**
 * The plain value that JSON.stringify prints as printTree does, or NOT_PLAIN: a number it would
 * spell otherwise (1.0, 1e-05, -0), a key JavaScript would move (an index such as "42") or cannot
 * set ("__proto__"), or a key the object repeats.
 */
export function plainOf(node: JsonNode): unknown {
  switch (node.kind) {
    case "plain":
      return node.value;
    case "null":
      return null;
    case "boolean":
    case "string":
      return node.value;
    case "number": {
      const value = Number(node.text);
      return String(value) === node.text ? value : NOT_PLAIN;
    }
    case "array": {
      const items: unknown[] = [];
      for (const item of node.items) {
        const plain = plainOf(item);
        if (plain === NOT_PLAIN) return NOT_PLAIN;
        items.push(plain);
      }
      return items;
    }
    case "object": {
      const object: Record<string, unknown> = {};
      for (const [key, value] of node.entries) {
        if (!settable(object, key)) return NOT_PLAIN;
        const plain = plainOf(value);
        if (plain === NOT_PLAIN) return NOT_PLAIN;
        object[key] = plain;
      }
      return object;
    }
  }
}

/** An object of plain values that JSON.stringify prints with its keys in this order, or NOT_PLAIN. */
export function plainObjectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> | typeof NOT_PLAIN {
  const object: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    if (!settable(object, key)) return NOT_PLAIN;
    object[key] = value;
  }
  return object;
}

/** Whether the key, set next, stays last among the object's keys and is not set already. */
function settable(object: Record<string, unknown>, key: string): boolean {
  return key !== "__proto__" && !INDEX_LIKE.test(key) && !Object.hasOwn(object, key);
}

/** The tree on one line, for storing a value with its key order and number spelling intact. */
export function printCompact(node: JsonNode): string {
  switch (node.kind) {
    case "array":
      return `[${node.items.map(printCompact).join(",")}]`;
    case "object":
      return `{${node.entries.map(([key, value]) => `${JSON.stringify(key)}:${printCompact(value)}`).join(",")}}`;
    case "plain":
      return JSON.stringify(node.value);
    default:
      return printTree(node);
  }
}

/** Keys an object of the tree repeats, with the path of that object (root: []), in reading order. */
export function repeatedKeys(root: JsonNode): { path: (string | number)[]; key: string }[] {
  const found: { path: (string | number)[]; key: string }[] = [];
  const stack: { node: JsonNode; path: (string | number)[] }[] = [{ node: root, path: [] }];
  while (stack.length > 0) {
    const { node, path } = stack.pop() as (typeof stack)[number];
    if (node.kind === "array") {
      for (let index = node.items.length - 1; index >= 0; index -= 1)
        stack.push({ node: node.items[index] as JsonNode, path: [...path, index] });
    } else if (node.kind === "object") {
      const seen = new Set<string>();
      for (const [key] of node.entries) {
        if (seen.has(key)) found.push({ path, key });
        seen.add(key);
      }
      for (let index = node.entries.length - 1; index >= 0; index -= 1) {
        const [key, value] = node.entries[index] as [string, JsonNode];
        stack.push({ node: value, path: [...path, key] });
      }
    }
  }
  return found;
}

/**
 * The plain JavaScript value of a tree, as JSON.parse gives it. A repeated key keeps its first
 * place and its last value, as both JSON.parse and Python's json module do.
 */
export function valueOf(node: JsonNode): unknown {
  switch (node.kind) {
    case "null":
      return null;
    case "boolean":
    case "string":
      return node.value;
    case "number":
      return Number(node.text);
    case "array":
      return node.items.map(valueOf);
    case "object":
      return Object.fromEntries(new Map(node.entries.map(([key, value]) => [key, valueOf(value)])));
    case "plain":
      return structuredClone(node.value);
  }
}

/** The tree of a plain JavaScript value (numbers spelled as JavaScript prints them). */
export function treeOf(value: unknown): JsonNode {
  if (value === null || value === undefined) return { kind: "null" };
  if (typeof value === "boolean") return { kind: "boolean", value };
  if (typeof value === "number") return Number.isFinite(value) ? { kind: "number", text: String(value) } : { kind: "null" };
  if (typeof value === "string") return { kind: "string", value };
  if (Array.isArray(value)) return { kind: "array", items: value.map(treeOf) };
  if (typeof value === "object") {
    return {
      kind: "object",
      entries: Object.entries(value as Record<string, unknown>)
        .filter(([, entry]) => entry !== undefined)
        .map(([key, entry]) => [key, treeOf(entry)]),
    };
  }
  return { kind: "string", value: String(value) };
}
