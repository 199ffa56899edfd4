import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GET } from "@/app/api/v1/openapi.json/route";
import { contextResultSchema } from "@/server/context/schemas";
import { traceBatchSchema, traceInputSchema } from "@/server/traces/schemas";
import { JSON_SCHEMA_TARGET } from "./openapi";

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] }>>;
  components: { schemas: Record<string, Record<string, unknown>> };
}

async function fetchDocument(): Promise<Document> {
  const response = await GET(new Request("http://localhost/api/v1/openapi.json"));
  expect(response.status).toBe(200);
  return JSON.parse(await response.text()) as Document;
}

function withoutDialect(schema: Record<string, unknown>) {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

describe("GET /api/v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing the trace and context endpoints", async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/v1/traces", "/api/v1/playbooks/{name}/context"]));
    expect(Object.keys(document.paths["/api/v1/traces"]?.post ?? {})).toEqual(expect.arrayContaining(["requestBody", "responses"]));
  });

  it("describes request and response bodies with the schemas the routes validate with", async () => {
    const { components } = await fetchDocument();
    const generate = (schema: z.ZodType, io: "input" | "output") =>
      withoutDialect(z.toJSONSchema(schema, { target: JSON_SCHEMA_TARGET, io }) as Record<string, unknown>);
    expect(components.schemas.TraceInput).toEqual(generate(traceInputSchema, "input"));
    expect(components.schemas.ContextResult).toEqual(generate(contextResultSchema, "output"));
    // The batch refers to the single trace rather than repeating it.
    expect(components.schemas.TraceBatch).toMatchObject({
      properties: { traces: { type: "array", minItems: 1, maxItems: 1_000, items: { $ref: "#/components/schemas/TraceInput" } } },
      required: ["traces"],
    });
    expect(traceBatchSchema.shape.traces.element).toBe(traceInputSchema);
  });

  it("every $ref points at a schema of the document", async () => {
    const document = await fetchDocument();
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]);
    expect(refs.length).toBeGreaterThan(5);
    for (const ref of refs) expect(Object.keys(document.components.schemas)).toContain(ref?.replace("#/components/schemas/", ""));
  });

  it("lists the context options as typed query parameters", async () => {
    const document = await fetchDocument();
    const parameters = document.paths["/api/v1/playbooks/{name}/context"]?.get?.parameters ?? [];
    const byName = Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter]));
    expect(byName.name).toMatchObject({ in: "path" });
    expect(byName.budget).toMatchObject({ in: "query", schema: { type: "integer", minimum: 0 } });
    expect(byName.counters).toMatchObject({ in: "query", schema: { type: "boolean", default: true } });
    expect(byName.format).toMatchObject({ in: "query", schema: { enum: ["json", "text"], default: "json" } });
    expect(byName["If-None-Match"]).toMatchObject({ in: "header" });
  });
});
