import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseModelJson } from "./json";

const reflection = z.object({
  reasoning: z.string(),
  bulletTags: z.array(z.object({ id: z.string(), tag: z.enum(["helpful", "harmful", "neutral"]) })),
});
const valid = { reasoning: "ok", bulletTags: [{ id: "str-00001", tag: "helpful" }] };

describe("parseModelJson", () => {
  it("parses a bare JSON object", () => {
    expect(parseModelJson(JSON.stringify(valid), reflection)).toEqual({ ok: true, value: valid });
  });

  it("tolerates a ```json fence and prose around it", () => {
    const raw = `Here is my analysis:\n\`\`\`json\n${JSON.stringify(valid, null, 2)}\n\`\`\`\nHope this helps!`;
    expect(parseModelJson(raw, reflection)).toEqual({ ok: true, value: valid });
  });

  it("tolerates prose before and after an unfenced object, even prose with braces", () => {
    expect(parseModelJson(`Sure! ${JSON.stringify(valid)} Let me know.`, reflection)).toEqual({ ok: true, value: valid });
    expect(parseModelJson(`Use {placeholders} carefully. ${JSON.stringify(valid)}`, reflection)).toEqual({ ok: true, value: valid });
  });

  it("says the answer is not JSON, with the parser's position", () => {
    const result = parseModelJson('{"reasoning": "ok", bulletTags: []}', reflection);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/^The model's answer is not JSON: .*position \d+/);
  });

  it("says when there is no JSON object at all, and when the answer is empty", () => {
    const prose = parseModelJson("I could not decide which bullets helped.", reflection);
    expect(prose).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^The model's answer is not JSON \(it contains no JSON object\)/),
    });
    expect(parseModelJson("  ", reflection)).toEqual({ ok: false, error: "The model's answer is empty." });
  });

  it("names the field that breaks the schema, and the schema", () => {
    const raw = JSON.stringify({ reasoning: "ok", bulletTags: [{ id: "str-00001", tag: "great" }] });
    expect(parseModelJson(raw, reflection, "reflection")).toEqual({
      ok: false,
      error: "The model's answer does not match the reflection schema: bulletTags.0.tag: expected one of helpful|harmful|neutral",
    });
  });

  it("lists missing fields and wrong types", () => {
    const result = parseModelJson(JSON.stringify({ bulletTags: "none" }), reflection, "reflection");
    expect(result).toEqual({
      ok: false,
      error:
        "The model's answer does not match the reflection schema: reasoning: missing (expected string); bulletTags: expected array, received string",
    });
  });

  it("describes the closest option of a union that nothing matched", () => {
    const operation = z.discriminatedUnion("type", [
      z.object({ type: z.literal("ADD"), section: z.string(), content: z.string() }),
      z.object({ type: z.literal("REMOVE"), id: z.string() }),
    ]);
    const curation = z.object({ operations: z.array(operation) });
    const missing = parseModelJson('{"operations": [{"type": "ADD", "section": "s"}]}', curation, "curation");
    expect(missing).toMatchObject({ ok: false, error: expect.stringContaining("operations.0.content: missing (expected string)") });
    const unknown = parseModelJson('{"operations": [{"type": "MOVE"}]}', curation, "curation");
    expect(unknown).toMatchObject({ ok: false, error: expect.stringContaining("operations.0.type: expected one of ADD|REMOVE") });
  });

  it("never throws, whatever the input", () => {
    for (const raw of ["{", "}{", "```", "null", "[1,2]", '"text"', "{{{{", "\u0000"]) {
      expect(() => parseModelJson(raw, reflection)).not.toThrow();
      expect(parseModelJson(raw, reflection).ok).toBe(false);
    }
  });
});
