import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument, JSON_SCHEMA_TARGET } from "@/server/http/openapi";
import { metricsResultSchema } from "./schemas";

describe("the metrics endpoint in the OpenAPI document", () => {
  const document = buildOpenApiDocument();
  const path = document.paths["/api/v1/playbooks/{name}/metrics"];

  it("lists every query parameter with its type, and the error statuses", () => {
    const parameters = Object.fromEntries(path.get.parameters.map((parameter) => [parameter.name, parameter]));
    expect(Object.keys(parameters)).toEqual(["name", "from", "to", "bucket", "experiment", "variant", "contentOnly", "scoresAt"]);
    expect(parameters.name).toMatchObject({ in: "path", required: true });
    expect(parameters.bucket).toMatchObject({ in: "query", schema: { enum: ["hour", "day", "week"], default: "day" } });
    expect(parameters.contentOnly).toMatchObject({ schema: { type: "boolean", default: true } });
    expect(parameters.scoresAt).toMatchObject({ schema: { type: "integer", minimum: 1 } });
    expect(parameters.from?.schema).toMatchObject({ anyOf: [{ format: "date-time" }, { format: "date" }] });
    expect(Object.keys(path.get.responses)).toEqual(["200", "400", "401", "403", "404", "429"]);
  });

  it("describes the answer with the schema the tRPC procedure validates its output with", () => {
    const { $schema: _dialect, ...generated } = z.toJSONSchema(metricsResultSchema, { target: JSON_SCHEMA_TARGET, io: "output" }) as Record<
      string,
      unknown
    >;
    expect(document.components.schemas.MetricsResult).toEqual(generated);
    expect(path.get.responses["200"].content?.["application/json"].schema).toEqual({ $ref: "#/components/schemas/MetricsResult" });
  });
});
