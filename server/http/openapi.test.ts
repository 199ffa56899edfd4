import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { routeAccessOf } from "@/server/apikeys/route";
import { GET } from "@/app/api/v1/openapi.json/route";
import { contextResultSchema } from "@/server/context/schemas";
import { traceBatchSchema, traceInputSchema } from "@/server/traces/schemas";
import { JSON_SCHEMA_TARGET, OPERATION_SCOPES } from "./openapi";

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

describe("the API keys in the OpenAPI document", () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

  function routeFiles(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return routeFiles(full);
      return name === "route.ts" ? [full] : [];
    });
  }

  it("declares the bearer key scheme", async () => {
    const document = (await fetchDocument()) as Document & { components: { securitySchemes?: Record<string, unknown> } };
    expect(document.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: "http", scheme: "bearer", description: expect.stringMatching(/Authorization: Bearer/) }),
    });
  });

  it("gives every /api/v1 route's operation the scope the route declares, and 401/403/429 answers", async () => {
    const document = (await fetchDocument()) as unknown as {
      paths: Record<string, Record<string, { security?: unknown; "x-ace-scope"?: string; responses: Record<string, unknown> }>>;
    };
    const files = routeFiles(path.join(root, "app/api/v1"));
    expect(files.length).toBeGreaterThan(6);
    let checked = 0;
    for (const file of files) {
      const openApiPath = `/${path.relative(path.join(root, "app"), path.dirname(file)).split(path.sep).join("/")}`.replace(
        /\[(\w+)\]/g,
        "{$1}",
      );
      const routeModule = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((name) => name in routeModule)) {
        const access = routeAccessOf(routeModule[method]);
        const operation = document.paths[openApiPath]?.[method.toLowerCase()];
        expect(operation, `${method} ${openApiPath} is missing from the OpenAPI document`).toBeDefined();
        if (access?.kind === "public") {
          expect(operation?.security, `${method} ${openApiPath}`).toEqual([]);
        } else {
          expect(access?.kind).toBe("scope");
          const scope = access?.kind === "scope" ? access.scope : null;
          expect(operation?.["x-ace-scope"], `${method} ${openApiPath}`).toBe(scope);
          expect(operation?.security, `${method} ${openApiPath}`).toEqual([{ apiKey: [scope] }]);
          expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["401", "403", "429"]));
          if (method !== "GET") expect(Object.keys(operation?.responses ?? {})).toContain("415");
        }
        checked += 1;
      }
    }
    expect(checked).toBe(Object.values(OPERATION_SCOPES).flatMap((methods) => Object.keys(methods)).length);
  }, 60_000);
});
