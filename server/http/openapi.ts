// The OpenAPI 3.1 document of the agent API (app/api/v1/**), generated from the zod schemas the
// routes validate with, so the document cannot drift from what the server accepts.
import { z } from "zod";
import { formatDuration } from "@/server/ace/text/format";
import type { ApiScope } from "@/server/apikeys/schemas";
import { contextOptionsSchema, contextResultSchema, MAX_CONTEXT_BUDGET } from "@/server/context/schemas";
import { APP_ERROR_CODES } from "@/server/errors/app-error";
import { HEALTH_REUSE_MS, HEALTH_TIMEOUT_MS, healthSchema } from "@/server/http/health-schema";
import {
  assignInput,
  assignmentResultSchema,
  createExperimentInput,
  experimentDefinitionSchema,
  experimentResultsSchema,
  updateExperimentFields,
} from "@/server/experiments/schemas";
import { MAX_BUCKETS, metricsQueryParamsSchema, metricsResultSchema } from "@/server/metrics/schemas";
import { MAX_PROPOSAL_BODY_BYTES, proposalRequestSchema, proposalResponseSchema } from "@/server/playbooks/schemas";
import {
  ingestResultSchema,
  MAX_TRACE_BODY_BYTES,
  MAX_TRACES_PER_BATCH,
  traceBatchSchema,
  traceDeletionResultSchema,
  traceInputSchema,
  traceSelectionQuerySchema,
} from "@/server/traces/schemas";

/** JSON Schema 2020-12 is the dialect of OpenAPI 3.1 schema objects. */
export const JSON_SCHEMA_TARGET = "draft-2020-12";

/** What errorResponse (server/http/responses.ts) sends. */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(APP_ERROR_CODES),
    message: z.string().describe("What went wrong and what to do, for a person to read."),
    details: z.record(z.string(), z.unknown()).nullable().optional(),
    issues: z
      .array(z.object({ path: z.string().describe("Dotted path of the field, e.g. traces.3.outcome."), message: z.string() }))
      .optional()
      .describe("Validation errors, one per field."),
    fields: z.record(z.string(), z.array(z.string())).optional(),
  }),
});

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Component schemas by id, references between them as $ref; $schema and $id are left to the document. */
function components(entries: Record<string, z.ZodType>, io: "input" | "output"): Record<string, Record<string, unknown>> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(entries)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { target: JSON_SCHEMA_TARGET, io, uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema as Record<string, unknown>]),
  );
}

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: ref("Error") } } });

const experimentKeyParameter = () => ({
  name: "key",
  in: "path",
  required: true,
  description: "The experiment's key (a slug).",
  schema: { type: "string" },
});

function contextParameters() {
  const options = z.toJSONSchema(contextOptionsSchema, { target: JSON_SCHEMA_TARGET, io: "input" }) as {
    properties: Record<string, Record<string, unknown>>;
  };
  return (["budget", "counters", "format"] as const).map((name) => {
    const { description, ...schema } = options.properties[name] ?? {};
    return { name, in: "query", required: false, description, schema };
  });
}

/** The query parameters of a GET or DELETE, from the schema its route parses them with. */
function queryParameters(schema: z.ZodType, required: readonly string[] = []) {
  const query = z.toJSONSchema(schema, { target: JSON_SCHEMA_TARGET, io: "input" }) as {
    properties: Record<string, Record<string, unknown>>;
  };
  return Object.entries(query.properties).map(([name, { description, ...schema }]) => ({
    name,
    in: "query",
    required: required.includes(name),
    description,
    schema,
  }));
}

type Method = "get" | "post" | "put" | "patch" | "delete";

/**
 * The API key scope each operation needs, as its route declares it with apiRoute({ scope })
 * (server/http/openapi.test.ts checks the two agree); "public" for the document itself.
 */
export const OPERATION_SCOPES: Record<string, Partial<Record<Method, ApiScope | "public">>> = {
  "/api/v1/traces": { post: "traces:write", get: "traces:read", delete: "traces:delete" },
  "/api/v1/playbooks/{name}/context": { get: "context:read" },
  "/api/v1/playbooks/{name}/metrics": { get: "metrics:read" },
  "/api/v1/playbooks/{name}/proposals": { post: "proposals:write" },
  "/api/v1/experiments": { post: "experiments:write" },
  "/api/v1/experiments/{key}": { get: "experiments:read", patch: "experiments:write" },
  "/api/v1/experiments/{key}/assign": { post: "experiments:assign" },
  "/api/v1/experiments/{key}/results": { get: "experiments:read" },
  "/api/v1/openapi.json": { get: "public" },
  "/api/v1/health": { get: "public" },
};

const BEARER = "apiKey";

type Operation = { description?: string; responses: Record<string, unknown>; [key: string]: unknown };

/** Each operation's security requirement with its scope, and the answers apiRoute gives for keys and bodies. */
function withSecurity<T extends Record<string, Partial<Record<Method, Operation>>>>(paths: T): T {
  return Object.fromEntries(
    Object.entries(paths).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations).map(([method, operation]) => {
          const scope = OPERATION_SCOPES[path]?.[method as Method];
          if (!scope) throw new Error(`No scope for ${method.toUpperCase()} ${path} in OPERATION_SCOPES (server/http/openapi.ts).`);
          if (scope === "public") return [method, { ...operation, security: [] }];
          const writes = method !== "get";
          return [
            method,
            {
              ...operation,
              description: `${operation.description ? `${operation.description}\n\n` : ""}Needs an API key with the scope \`${scope}\` where keys are required.`,
              security: [{ [BEARER]: [scope] }],
              "x-ace-scope": scope,
              responses: {
                ...operation.responses,
                "401": errorResponse("No API key, or one that is unknown, revoked or expired, where keys are required."),
                "403": errorResponse(`The key lacks the scope ${scope}, or may not touch this playbook; the message says which.`),
                ...(writes ? { "415": errorResponse("The body is not sent as Content-Type: application/json. Nothing was stored.") } : {}),
                "429": errorResponse("The key made more requests this minute than its limit; wait Retry-After seconds."),
              },
            },
          ];
        }),
      ),
    ]),
  ) as T;
}

export function buildOpenApiDocument() {
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "ACE Studio agent API",
      version: "1.0.0",
      description:
        "For agents in any language: fetch the compiled playbook to put into the prompt, and report each run as a trace " +
        "so the reflector and curator can improve the playbook.",
    },
    paths: withSecurity({
      "/api/v1/traces": {
        post: {
          operationId: "ingestTraces",
          summary: "Report agent runs",
          description:
            `One trace, or up to ${MAX_TRACES_PER_BATCH} as {"traces": [...]}, at most ${MAX_TRACE_BODY_BYTES / 1_048_576} MB. ` +
            "All are stored or none. A trace whose externalId its playbook already holds is not stored again: it is reported " +
            "as a duplicate with the id stored first, so retrying a request is safe.",
          requestBody: {
            required: true,
            content: { "application/json": { schema: { oneOf: [ref("TraceInput"), ref("TraceBatch")] } } },
          },
          responses: {
            "201": { description: "At least one trace was stored.", content: { "application/json": { schema: ref("IngestResult") } } },
            "200": {
              description: "Every trace was a duplicate: nothing new was stored.",
              content: { "application/json": { schema: ref("IngestResult") } },
            },
            "400": errorResponse("The body is not JSON, or a field is invalid (error.issues names each field)."),
            "404": errorResponse("A named playbook does not exist (error.details.playbooks lists them). Nothing was stored."),
            "413": errorResponse(`The body is larger than ${MAX_TRACE_BODY_BYTES / 1_048_576} MB. Nothing was stored.`),
          },
        },
        get: {
          operationId: "exportTraces",
          summary: "Export a unit's traces as JSON Lines (a subject-access request)",
          description:
            "The traces of one playbook with this unitId, externalId and time range (each optional, at least one: a selection of " +
            "every trace of a playbook is refused). A unitId is matched as sent and under the keyed hash an email or phone " +
            "number is stored as." +
            ' One JSON object a line, oldest trace first: {"record": "trace", …} as stored (redacted at ingestion), then, ' +
            'for a unitId alone, the unit\'s experiment exposures ({"record": "exposure", …}).',
          parameters: queryParameters(traceSelectionQuerySchema, ["playbook"]),
          responses: {
            "200": {
              description: "The selection, one record a line (none: an empty body).",
              content: { "application/x-ndjson": { schema: { type: "string" } } },
            },
            "400": errorResponse("No selector, an unknown or repeated parameter, or a bad time (error.issues names it)."),
            "404": errorResponse("No playbook of that name."),
          },
        },
        delete: {
          operationId: "deleteTraces",
          summary: "Delete a unit's traces (a deletion request)",
          description:
            "The traces of one playbook with this unitId, externalId and time range (each optional, at least one: a selection of " +
            "every trace of a playbook is refused). A unitId is matched as sent and under the keyed hash an email or phone " +
            "number is stored as." +
            " Deletes them in one transaction with, for a unitId alone, the unit's experiment exposures, and records the deletion " +
            "in the audit log (a personal unit id only as its hash). Bullet counters the traces moved stay as they are. " +
            "Export the same selection first (GET) to answer a subject-access request.",
          parameters: queryParameters(traceSelectionQuerySchema, ["playbook"]),
          responses: {
            "200": {
              description: "What was deleted (0 and 0 when nothing matched).",
              content: { "application/json": { schema: ref("TraceDeletion") } },
            },
            "400": errorResponse(
              "No selector, an unknown or repeated parameter, or a bad time (error.issues names it). Nothing was deleted.",
            ),
            "404": errorResponse("No playbook of that name. Nothing was deleted."),
          },
        },
      },
      "/api/v1/playbooks/{name}/context": {
        get: {
          operationId: "getPlaybookContext",
          summary: "The compiled playbook to put into the prompt",
          description:
            "Active bullets ranked by helpful − harmful and cut to the token budget (o200k_base), as ACE text. " +
            "Send the ETag back in If-None-Match to get 304 while the playbook is unchanged.",
          parameters: [
            { name: "name", in: "path", required: true, description: "The playbook's name, URL-encoded.", schema: { type: "string" } },
            ...contextParameters(),
            {
              name: "experiment",
              in: "query",
              required: false,
              description:
                "With unitId: serve the context of the variant this experiment assigns to the unit (its pinned version, the latest, " +
                "another playbook, or an empty context for noPlaybook, then with version 0), and record the unit's exposure.",
              schema: { type: "string" },
            },
            {
              name: "unitId",
              in: "query",
              required: false,
              description: "The unit to assign; required with experiment.",
              schema: { type: "string" },
            },
            {
              name: "If-None-Match",
              in: "header",
              required: false,
              description: "The ETag of the copy the agent holds.",
              schema: { type: "string" },
            },
          ],
          responses: {
            "200": {
              description: "The compiled context: JSON, or the text alone with format=text.",
              headers: {
                ETag: { description: "Changes when the playbook or the options change.", schema: { type: "string" } },
                "X-Ace-Variant": {
                  description: "With experiment and unitId: the variant served (absent when the unit is not in it).",
                  schema: { type: "string" },
                },
                "X-Ace-Experiment-Reason": {
                  description:
                    "With experiment and unitId, when the unit is not in it: outside_coverage, draft or stopped (the playbook's latest is served).",
                  schema: { type: "string" },
                },
                "Cache-Control": { description: "no-cache: revalidate with If-None-Match.", schema: { type: "string" } },
              },
              content: {
                "application/json": { schema: ref("ContextResult") },
                "text/plain": { schema: { type: "string" } },
              },
            },
            "304": { description: "Not modified: the copy with this ETag is current." },
            "400": errorResponse(`An option is invalid, e.g. a budget that is not a whole number up to ${MAX_CONTEXT_BUDGET}.`),
            "404": errorResponse("No playbook has this name."),
            "409": errorResponse(
              "The playbook's pinned bullets alone take more tokens than the budget; the message names the budget they need.",
            ),
          },
        },
      },
      "/api/v1/playbooks/{name}/metrics": {
        get: {
          operationId: "getPlaybookMetrics",
          summary: "The playbook's metrics over time: what its Evolution charts draw",
          description:
            "Buckets are UTC: `from` is truncated to the start of its bucket, `to` is exclusive, and every bucket in between " +
            "is present (empty ones with zeros; successRate and ci95 null when success + failure is 0). A bucket holds " +
            "traces with start ≤ timestamp < start + 1 bucket; days start at 00:00 UTC, weeks on Monday. success rate = " +
            "success ÷ (success + failure), ci95 the Wilson score interval (z = 1.959963984540054); quantiles are " +
            "percentile_cont. `experiment` and `variant` filter the traces (outcomes and the agent's cost); `variant` " +
            "without `experiment` matches the variant label in any experiment.",
          parameters: [
            { name: "name", in: "path", required: true, description: "The playbook's name, URL-encoded.", schema: { type: "string" } },
            ...queryParameters(metricsQueryParamsSchema),
          ],
          responses: {
            "200": { description: "The metrics.", content: { "application/json": { schema: ref("MetricsResult") } } },
            "400": errorResponse(
              `A parameter is invalid (error.issues names it), \`to\` is not after \`from\`, or the range holds more than ` +
                `${MAX_BUCKETS.toLocaleString("en")} buckets (widen the bucket).`,
            ),
            "404": errorResponse("No playbook has this name."),
          },
        },
      },
      "/api/v1/playbooks/{name}/proposals": {
        post: {
          operationId: "proposePlaybookChanges",
          summary: "Propose an externally evolved playbook for review",
          description:
            "For ACE loops that evolve a playbook outside ACE Studio (the LangChain ACE middleware, kayba, the ACE " +
            "authors' code): the file is compared with the playbook at baseVersion, the version the loop started from, " +
            "and what it changed since (bullets added, starting with the counters the file gives them; edited, moved, " +
            "removed; counter increments as tags; sections added or renamed) becomes one pending delta of origin " +
            "import, computed on the playbook as it is now, so " +
            "changes made in ACE Studio since are kept. A bullet changed on both sides is listed in conflicts and makes " +
            "the delta stale: a reviewer re-bases it to approve it. Formats without counters (ace-plain, kayba 0.9.3 " +
            "and later) leave the counters as they are; ACE text leaves neutral alone. Needs an API key with the scope " +
            `proposals:write. The body is at most ${MAX_PROPOSAL_BODY_BYTES / 1_048_576} MB.`,
          parameters: [
            { name: "name", in: "path", required: true, description: "The playbook's name, URL-encoded.", schema: { type: "string" } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: ref("ProposalRequest") } } },
          responses: {
            "201": { description: "The delta waits for review.", content: { "application/json": { schema: ref("ProposalResult") } } },
            "200": {
              description: "The file has no change the playbook lacks: no delta (deltaId null, operations 0).",
              content: { "application/json": { schema: ref("ProposalResult") } },
            },
            "400": errorResponse("The body is not JSON, a field is invalid (error.issues names it), or the file does not parse."),
            "404": errorResponse("No playbook has this name."),
            "409": errorResponse("baseVersion does not exist (below 1) or is in the future (above the current version)."),
            "413": errorResponse(`The body is larger than ${MAX_PROPOSAL_BODY_BYTES / 1_048_576} MB.`),
          },
        },
      },
      "/api/v1/experiments": {
        post: {
          operationId: "createExperiment",
          summary: "Create an experiment (A/B test of playbook variants)",
          description:
            "2–10 variants, the first the control, whose weights sum to 1 (±0.001; none given: an equal split). A variant serves the " +
            "playbook pinned at `playbookVersion`, its `latest` version (the default), `noPlaybook` (an empty context) or another " +
            '`playbook`. `status: "running"` starts it at once.',
          requestBody: { required: true, content: { "application/json": { schema: ref("CreateExperiment") } } },
          responses: {
            "201": { description: "Created; Location names it.", content: { "application/json": { schema: ref("ExperimentDefinition") } } },
            "400": errorResponse(
              "A field is invalid, e.g. weights that do not sum to 1 or a version that does not exist (the message names the field).",
            ),
            "409": errorResponse("An experiment with this key exists."),
          },
        },
      },
      "/api/v1/experiments/{key}": {
        get: {
          operationId: "getExperiment",
          summary: "An experiment's definition, with what a GrowthBook SDK needs to assign offline",
          description:
            "`growthbook` is an inline experiment (key, seed, hashVersion 2, hashAttribute id, variations, weights, coverage, phase): " +
            "run with attributes { id: unitId }, a GrowthBook SDK picks the same variant as POST …/assign.",
          parameters: [experimentKeyParameter()],
          responses: {
            "200": { description: "The definition.", content: { "application/json": { schema: ref("ExperimentDefinition") } } },
            "404": errorResponse("No experiment has this key."),
          },
        },
        patch: {
          operationId: "updateExperiment",
          summary: "Change an experiment; status starts or stops it",
          description:
            "Only the fields sent change. Before the first start everything may change; after it, only names, weights, coverage, the " +
            "hypothesis, guardrails and the plan. Changing weights or coverage of a running experiment (or restarting a stopped one) " +
            "starts a new phase with a new seed, analysed on its own: send confirmNewPhase: true.",
          parameters: [experimentKeyParameter()],
          requestBody: { required: true, content: { "application/json": { schema: ref("UpdateExperiment") } } },
          responses: {
            "200": { description: "The new definition.", content: { "application/json": { schema: ref("ExperimentDefinition") } } },
            "400": errorResponse(
              "A field is invalid or the change is not allowed now (the message names the field, e.g. confirmNewPhase).",
            ),
            "404": errorResponse("No experiment has this key."),
          },
        },
      },
      "/api/v1/experiments/{key}/assign": {
        post: {
          operationId: "assignExperimentUnit",
          summary: "The variant of a unit (an agent, a user, a task)",
          description:
            "GrowthBook hashing version 2 over the current phase's seed, weights and coverage. The first assignment of a unit in a " +
            "phase records its exposure; later calls answer the same variant. variant is null, with a reason, when the unit is " +
            "outside the coverage or the experiment is a draft or stopped.",
          parameters: [experimentKeyParameter()],
          requestBody: { required: true, content: { "application/json": { schema: ref("AssignRequest") } } },
          responses: {
            "200": { description: "The assignment.", content: { "application/json": { schema: ref("Assignment") } } },
            "400": errorResponse("unitId is missing or invalid."),
            "404": errorResponse("No experiment has this key."),
          },
        },
      },
      "/api/v1/experiments/{key}/results": {
        get: {
          operationId: "getExperimentResults",
          summary: "An experiment's results for one phase",
          description:
            "Per variant: units, traces, outcomes, success rate with its Wilson interval, means of cost, tokens and duration. Per " +
            "comparison with the control: difference with Newcombe's interval, pooled z-test p-value, Holm-adjusted p-value, chance to " +
            "beat control, guardrails (Welch), paired McNemar and power. analysis is per-unit when a unit has several decided traces " +
            "(delta method). srm is flagged at p < 0.001. Fixed-horizon design: early until the planned units are reached. " +
            "`methods` names the method of every figure.",
          parameters: [
            experimentKeyParameter(),
            {
              name: "phase",
              in: "query",
              required: false,
              description: "The phase; default the current (or last) one.",
              schema: { type: "integer", minimum: 1 },
            },
          ],
          responses: {
            "200": { description: "The results.", content: { "application/json": { schema: ref("ExperimentResults") } } },
            "400": errorResponse("phase is not a phase number."),
            "404": errorResponse("No experiment has this key, or it has no such phase."),
          },
        },
      },
      "/api/v1/health": {
        get: {
          operationId: "getHealth",
          summary: "Whether this instance can serve",
          description:
            "For load balancers and orchestrators: 200 when this instance and its database answer, 503 when the database " +
            `refused a \`SELECT 1\` or took over ${formatDuration(HEALTH_TIMEOUT_MS)}. A check is reused for ` +
            `${formatDuration(HEALTH_REUSE_MS)}, so frequent probes cost one query each ${formatDuration(HEALTH_REUSE_MS)}. ` +
            "HEAD answers the same status without the body.",
          responses: {
            "200": { description: "This instance can serve.", content: { "application/json": { schema: ref("Health") } } },
            "503": { description: "This instance cannot reach its database.", content: { "application/json": { schema: ref("Health") } } },
          },
        },
      },
      "/api/v1/openapi.json": {
        get: {
          operationId: "getOpenApiDocument",
          summary: "This document",
          responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } },
        },
      },
    }),
    components: {
      securitySchemes: {
        [BEARER]: {
          type: "http",
          scheme: "bearer",
          description:
            "An API key (Settings → API keys, or npm run ace -- apikey create), sent as Authorization: Bearer <key>. " +
            "Each operation names the scope it needs. Keys are required wherever the studio requires sign-in (ACE_AUTH); " +
            "a laptop's studio without accounts, listening on loopback only, needs none.",
        },
      },
      schemas: {
        ...components(
          {
            TraceInput: traceInputSchema,
            TraceBatch: traceBatchSchema,
            ProposalRequest: proposalRequestSchema,
            CreateExperiment: createExperimentInput,
            UpdateExperiment: updateExperimentFields,
            AssignRequest: assignInput,
          },
          "input",
        ),
        ...components(
          {
            IngestResult: ingestResultSchema,
            ContextResult: contextResultSchema,
            MetricsResult: metricsResultSchema,
            ProposalResult: proposalResponseSchema,
            ExperimentDefinition: experimentDefinitionSchema,
            Assignment: assignmentResultSchema,
            ExperimentResults: experimentResultsSchema,
            TraceDeletion: z.object({ deleted: traceDeletionResultSchema }),
            Error: errorBodySchema,
            Health: healthSchema,
          },
          "output",
        ),
      },
    },
  };
}
