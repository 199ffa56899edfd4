import { describe, expect, it } from "vitest";
import { parseTree, printCompact, printTree, treeOf, valueOf, type JsonNode } from "./json-tree";

// What Python's json.dumps(value, ensure_ascii=False, indent=2) printed for
// {"b": [1.0, -2.5e-05, 1e16, 0.1, 12345678901234567890, -0.0], "42": {"x": [], "y": {}},
//  "a": "café \u2028 \x01 \"q\" \\ /", "t": True, "n": None}
const PYTHON =
  '{\n  "b": [\n    1.0,\n    -2.5e-05,\n    1e+16,\n    0.1,\n    12345678901234567890,\n    -0.0\n  ],\n  "42": {\n    "x": [],\n    "y": {}\n  },\n' +
  '  "a": "café \u2028 \\u0001 \\"q\\" \\\\ /",\n  "t": true,\n  "n": null\n}';

describe("the JSON tree", () => {
  it("prints what it read from Python's json.dumps byte for byte: number spelling, key order, escapes", () => {
    expect(printTree(parseTree(PYTHON))).toBe(PYTHON);
    // What JSON.parse and JSON.stringify would do instead.
    expect(JSON.stringify(JSON.parse(PYTHON), null, 2)).not.toBe(PYTHON);
  });

  it("keeps the same through its compact form", () => {
    const compact = printCompact(parseTree(PYTHON));
    expect(compact).toBe(
      '{"b":[1.0,-2.5e-05,1e+16,0.1,12345678901234567890,-0.0],"42":{"x":[],"y":{}},"a":"café \u2028 \\u0001 \\"q\\" \\\\ /","t":true,"n":null}',
    );
    expect(printTree(parseTree(compact))).toBe(PYTHON);
  });

  it("indents a value printed at a depth as it stands there", () => {
    expect(printTree(parseTree("[1,[2]]"), 2)).toBe("[\n      1,\n      [\n        2\n      ]\n    ]");
  });

  // Python: json.dumps({"skills": {"s-1": {"id": "s-1", "n": [1, 2.5, -3], "e": []},
  //   "7": {"__proto__": {"x": 1}, "w": [0.5, 1.0]}}, "next_id": 3, "d": {"k": -0.0}}, indent=2, ensure_ascii=False)
  const MIXED =
    '{\n  "skills": {\n    "s-1": {\n      "id": "s-1",\n      "n": [\n        1,\n        2.5,\n        -3\n      ],\n      "e": []\n    },\n' +
    '    "7": {\n      "__proto__": {\n        "x": 1\n      },\n      "w": [\n        0.5,\n        1.0\n      ]\n    }\n  },\n' +
    '  "next_id": 3,\n  "d": {\n    "k": -0.0\n  }\n}';

  it("prints a tree JSON.stringify would print otherwise part by part: the parts it prints the same are printed by it", () => {
    expect(printTree(parseTree(MIXED))).toBe(MIXED);
    // Each reason on its own: an index key, __proto__, a number spelled otherwise, a repeated key.
    expect(printTree(parseTree('{"a": {"b": [{"x": 0, "7": 1}]}}'))).toBe(
      '{\n  "a": {\n    "b": [\n      {\n        "x": 0,\n        "7": 1\n      }\n    ]\n  }\n}',
    );
    expect(printTree(parseTree('[{"__proto__": []}]'))).toBe('[\n  {\n    "__proto__": []\n  }\n]');
    expect(printTree(parseTree("[[1.0], [1e-05], [-0]]"))).toBe("[\n  [\n    1.0\n  ],\n  [\n    1e-05\n  ],\n  [\n    -0\n  ]\n]");
    expect(printTree(parseTree('{"a": 1, "b": {"c": 2, "c": 3}}'))).toBe('{\n  "a": 1,\n  "b": {\n    "c": 2,\n    "c": 3\n  }\n}');
    // Strings JSON.stringify escapes as Python does: lone surrogates, controls, U+2028.
    const strings = treeOf(["\ud800", "\u0001\u001f", "\u2028", '"\\']);
    expect(printTree(strings, 1)).toBe('[\n    "\\ud800",\n    "\\u0001\\u001f",\n    "\u2028",\n    "\\"\\\\"\n  ]');
  });

  it("prints a value built as plain where it stands, inside a tree printed part by part", () => {
    const tree: JsonNode = {
      kind: "object",
      entries: [
        ["a", { kind: "plain", value: { x: [1, "y"], z: {} } }],
        ["b", { kind: "number", text: "1.0" }],
      ],
    };
    expect(printTree(tree)).toBe('{\n  "a": {\n    "x": [\n      1,\n      "y"\n    ],\n    "z": {}\n  },\n  "b": 1.0\n}');
    expect(printCompact(tree)).toBe('{"a":{"x":[1,"y"],"z":{}},"b":1.0}');
    expect(valueOf(tree)).toEqual({ a: { x: [1, "y"], z: {} }, b: 1 });
  });

  it("gives the values JSON.parse gives, a repeated key in its first place with its last value", () => {
    expect(valueOf(parseTree(PYTHON))).toEqual(JSON.parse(PYTHON));
    const repeated = valueOf(parseTree('{"a": 1, "b": 2, "a": 3}')) as Record<string, number>;
    expect(Object.entries(repeated)).toEqual([
      ["a", 3],
      ["b", 2],
    ]);
  });

  it("builds a tree of a plain value, numbers as JavaScript spells them", () => {
    expect(printCompact(treeOf({ a: [1, 0.5, null, "x"], b: { c: true }, d: undefined }))).toBe('{"a":[1,0.5,null,"x"],"b":{"c":true}}');
  });

  it("refuses text that is not JSON", () => {
    expect(() => parseTree('{"a": }')).toThrow(SyntaxError);
    expect(() => parseTree("[1] 2")).toThrow(SyntaxError);
  });
});
