import { describe, expect, it } from "vitest";
import { z } from "zod";
import { responseJsonSchema } from "./structured-output";

describe("responseJsonSchema", () => {
  it("makes a plain object schema strict: every property required, no extra properties, no $schema", () => {
    const { schema, strict } = responseJsonSchema(
      z.object({ reasoning: z.string(), note: z.string().optional(), tags: z.array(z.object({ id: z.string() })) }),
    );
    expect(strict).toBe(true);
    expect(schema).not.toHaveProperty("$schema");
    expect(schema).toMatchObject({
      type: "object",
      required: ["reasoning", "note", "tags"],
      additionalProperties: false,
      properties: { tags: { items: { required: ["id"], additionalProperties: false } } },
    });
  });

  it("turns oneOf (discriminated unions) into anyOf and drops defaults", () => {
    const op = z.discriminatedUnion("type", [
      z.object({ type: z.literal("ADD"), content: z.string() }),
      z.object({ type: z.literal("REMOVE"), id: z.string() }),
    ]);
    const { schema, strict } = responseJsonSchema(z.object({ operations: z.array(op), limit: z.number().default(3) }));
    expect(strict).toBe(true);
    const json = JSON.stringify(schema);
    expect(json).not.toContain("oneOf");
    expect(json).not.toContain('"default"');
    expect(json).toContain("anyOf");
  });

  it("leaves out string lengths, which strict mode rejects and the zod parse checks anyway", () => {
    const json = JSON.stringify(responseJsonSchema(z.object({ note: z.string().min(1).max(20) })).schema);
    expect(json).not.toMatch(/minLength|maxLength/);
  });

  it("sends open-ended shapes (records, unknown) without strict", () => {
    expect(responseJsonSchema(z.object({ counts: z.record(z.string(), z.number()) })).strict).toBe(false);
    expect(responseJsonSchema(z.object({ anything: z.unknown() })).strict).toBe(false);
  });
});
