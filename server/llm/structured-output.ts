// Turns a zod schema into the JSON Schema of an OpenAI structured-output request. Strict mode
// accepts a subset of JSON Schema (every property required, no extra properties, anyOf but not
// oneOf/allOf, no open-ended objects); a schema outside it is sent with strict: false.
import { z, type ZodType } from "zod";

export interface ResponseJsonSchema {
  schema: Record<string, unknown>;
  strict: boolean;
}

/**
 * Keywords strict mode rejects. Lengths are among them: the zod parse of the answer still checks
 * them, and a too-long field fails with a readable reason instead of the whole request.
 */
const DROPPED_KEYWORDS = new Set(["$schema", "default", "propertyNames", "minLength", "maxLength"]);
/** Keywords strict mode cannot honour: their presence turns strict off. */
const NON_STRICT_KEYWORDS = new Set(["allOf", "not", "prefixItems", "if", "patternProperties", "dependentSchemas"]);
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions"]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf"]);

/**
 * The schema of what the model must write, which is what `schema.parse` takes in (io: "input").
 * Optional properties become required: strict mode demands it, and a value the model always
 * writes still parses, where the documented alternative (nullable) would not.
 */
export function responseJsonSchema(schema: ZodType): ResponseJsonSchema {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  const state = { strict: json.type === "object" };
  return { schema: strictify(json, state) as Record<string, unknown>, strict: state.strict };
}

function strictify(node: unknown, state: { strict: boolean }): unknown {
  if (Array.isArray(node)) return node.map((item) => strictify(item, state));
  if (node === null || typeof node !== "object") return node;
  const source = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (NON_STRICT_KEYWORDS.has(key)) state.strict = false;
    if (SCHEMA_MAPS.has(key) && value && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictify(v, state)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out.anyOf = value.map((v) => strictify(v, state)); // strict mode knows anyOf only
    } else if (key === "items" || key === "additionalProperties") {
      out[key] = typeof value === "object" ? strictify(value, state) : value;
    } else {
      out[key] = value;
    }
  }
  const typeIsObject = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object"));
  if (typeIsObject) {
    const properties = out.properties as Record<string, unknown> | undefined;
    if (!properties || (out.additionalProperties !== undefined && out.additionalProperties !== false)) {
      state.strict = false; // a record or passthrough object: its keys are not known up front
    } else {
      out.additionalProperties = false;
      out.required = Object.keys(properties);
    }
  }
  const describesSomething = ["type", "anyOf", "$ref", "enum", "const"].some((k) => k in out);
  if (!describesSomething && !("properties" in out)) state.strict = false; // z.unknown() and friends: any value
  return out;
}

/** The instruction that replaces structured outputs on servers without them (json_object mode). */
export function jsonObjectInstruction(schemaName: string, schema: Record<string, unknown>): string {
  return (
    `Answer with one JSON object and nothing else: no prose, no code fence. ` +
    `It must match this JSON Schema (named "${schemaName}"):\n${JSON.stringify(schema)}`
  );
}
