// A local OpenAI-compatible server for tests, e2e runs and benchmarks: POST /v1/chat/completions
// and POST /v1/embeddings answer from a script of steps, or (mode "ace") with a valid reflection
// or curation derived from the request. Standalone:
//   tsx server/testing/mock-openai.ts --port 4010 --mode ace [--latency-ms 50] [--reject-json-schema]
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { countTokens } from "../ace/tokens";

export interface MockChatMessage {
  role: string;
  content: unknown;
}

/** The parts of a request body the mock reads; anything else is recorded as sent. */
export interface MockRequestBody {
  model?: string;
  messages?: MockChatMessage[];
  response_format?: { type?: string; json_schema?: { name?: string; schema?: JsonSchema; strict?: boolean } };
  input?: string | string[];
  encoding_format?: "float" | "base64";
  dimensions?: number;
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or {} when it was not JSON. */
  body: MockRequestBody;
  receivedAt: number;
}

export interface MockUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export type MockStep =
  /** A chat answer; an object is JSON-stringified. usage: null leaves usage out of the response. */
  | { content: string | object; usage?: Partial<MockUsage> | null; finishReason?: string }
  /** An HTTP error (429, 500 …); body defaults to an OpenAI-shaped error. */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Waits before answering with `then` (default: the endpoint's default step), to trigger client timeouts. */
  | { delayMs: number; then?: MockStep }
  /** 400 "response_format json_schema is not supported" to a json_schema request; other requests skip it. */
  | { rejectJsonSchema: true }
  /** An embeddings answer with these vectors. */
  | { vectors: number[][] }
  | MockStepFunction;

export type MockStepFunction = (body: MockRequestBody, request: RecordedRequest) => MockStep | Promise<MockStep>;

export type MockEndpoint = "chat" | "embeddings";

export interface MockOpenAiOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** "script" (default): answers from the script, else the default step. "ace": the default chat step is aceAnswer. */
  mode?: "script" | "ace";
  /** Added before every answer, to model a real provider's latency in benchmarks. */
  latencyMs?: number;
  /** Reject every json_schema request, like a server without structured outputs. */
  rejectJsonSchema?: boolean;
}

export interface MockOpenAi {
  /** Base URL including /v1, for OPENAI_BASE_URL. */
  url: string;
  port: number;
  /** Every request received, in order of arrival. */
  requests: RecordedRequest[];
  /** Queues chat-completion steps, consumed one per request. */
  script(...steps: MockStep[]): void;
  scriptEmbeddings(...steps: MockStep[]): void;
  setDefault(step: MockStep, endpoint?: MockEndpoint): void;
  /** Requests to one endpoint so far. */
  count(endpoint: MockEndpoint): number;
  /** Forgets scripts and recorded requests; defaults stay. */
  reset(): void;
  close(): Promise<void>;
}

export const NO_SCRIPTED_ANSWER: MockStep = {
  status: 500,
  body: { error: { message: "no scripted answer", type: "server_error", param: null, code: null } },
};

const PATHS: Record<MockEndpoint, string> = { chat: "/v1/chat/completions", embeddings: "/v1/embeddings" };
const DEFAULT_DIMENSIONS = 256;

export async function startMockOpenAi(options: MockOpenAiOptions = {}): Promise<MockOpenAi> {
  const queues: Record<MockEndpoint, MockStep[]> = { chat: [], embeddings: [] };
  const defaults: Record<MockEndpoint, MockStep> = {
    chat: options.mode === "ace" ? aceAnswer : NO_SCRIPTED_ANSWER,
    embeddings: hashEmbeddings,
  };
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let sequence = 0;

  const wait = (ms: number) =>
    new Promise<void>((done) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        done();
      }, ms);
      timers.add(timer);
    });
  const next = (endpoint: MockEndpoint) => queues[endpoint].shift() ?? defaults[endpoint];

  async function answer(res: ServerResponse, endpoint: MockEndpoint, step: MockStep, request: RecordedRequest) {
    const body = request.body;
    if (typeof step === "function") return answer(res, endpoint, await step(body, request), request);
    if ("delayMs" in step) {
      await wait(step.delayMs);
      return answer(res, endpoint, step.then ?? defaults[endpoint], request);
    }
    if ("rejectJsonSchema" in step) {
      if (body.response_format?.type === "json_schema") return sendJson(res, 400, jsonSchemaRejection());
      return answer(res, endpoint, next(endpoint), request);
    }
    if ("status" in step) {
      const errorBody = step.body ?? { error: { message: `scripted ${step.status}`, type: "server_error", param: null, code: null } };
      return sendJson(res, step.status, errorBody, step.headers);
    }
    if ("vectors" in step) {
      if (endpoint !== "embeddings") return sendJson(res, 500, mockError("a vectors step answered a chat request"));
      return sendJson(res, 200, embeddingsResponse(body, step.vectors));
    }
    if (endpoint !== "chat") return sendJson(res, 500, mockError("a content step answered an embeddings request"));
    const content = typeof step.content === "string" ? step.content : JSON.stringify(step.content);
    const usage =
      step.usage === null
        ? undefined
        : {
            prompt_tokens: step.usage?.prompt_tokens ?? promptTokens(body.messages ?? []),
            completion_tokens: step.usage?.completion_tokens ?? countTokens(content),
          };
    return sendJson(res, 200, {
      id: `chatcmpl-mock-${++sequence}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? "mock-model",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, refusal: null },
          logprobs: null,
          finish_reason: step.finishReason ?? "stop",
        },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    });
  }

  const server = createServer((req, res) => {
    res.on("error", () => {}); // the client may have given up (timeout tests): nothing to tell it
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = (req.url ?? "/").split("?")[0]!;
      let body: MockRequestBody = {};
      try {
        const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as MockRequestBody;
      } catch {
        // recorded as {}; the step decides what to answer
      }
      const request: RecordedRequest = { method: req.method ?? "GET", path, headers: req.headers, body, receivedAt: Date.now() };
      requests.push(request);
      void (async () => {
        if (req.method === "GET" && path === "/v1/models") {
          return sendJson(res, 200, { object: "list", data: [{ id: "mock-model", object: "model", created: 0, owned_by: "mock" }] });
        }
        const endpoint = (Object.keys(PATHS) as MockEndpoint[]).find((e) => PATHS[e] === path);
        if (req.method !== "POST" || !endpoint)
          return sendJson(res, 404, mockError(`no route ${req.method} ${path}`, "invalid_request_error"));
        if (options.latencyMs) await wait(options.latencyMs);
        if (options.rejectJsonSchema && body.response_format?.type === "json_schema") {
          return sendJson(res, 400, jsonSchemaRejection());
        }
        await answer(res, endpoint, next(endpoint), request);
      })().catch((error: unknown) => sendJson(res, 500, mockError(`mock step failed: ${String(error)}`)));
    });
  });

  await new Promise<void>((ready, fail) => {
    server.once("error", fail);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => ready());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== "0.0.0.0" ? options.host : "127.0.0.1";

  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/v1`,
    port,
    requests,
    script: (...steps) => void queues.chat.push(...steps),
    scriptEmbeddings: (...steps) => void queues.embeddings.push(...steps),
    setDefault: (step, endpoint = "chat") => void (defaults[endpoint] = step),
    count: (endpoint) => requests.filter((r) => r.path === PATHS[endpoint]).length,
    reset: () => {
      queues.chat.length = 0;
      queues.embeddings.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((done) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function mockError(message: string, type = "server_error") {
  return { error: { message, type, param: null, code: null } };
}

function jsonSchemaRejection() {
  return {
    error: {
      message: "response_format json_schema is not supported",
      type: "invalid_request_error",
      param: "response_format",
      code: null,
    },
  };
}

function promptTokens(messages: MockChatMessage[]): number {
  return messages.reduce((sum, m) => sum + 4 + countTokens(typeof m.content === "string" ? m.content : JSON.stringify(m.content)), 3);
}

// ---------------------------------------------------------------------------------------------
// Embeddings: hashed bag of words, so texts that share words get similar vectors, deterministically.

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

export function hashEmbedding(text: string, dimensions = DEFAULT_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const h = fnv1a(word);
    vector[h % dimensions]! += (h & 0x80000000) === 0 ? 1 : -1;
  }
  const length = Math.hypot(...vector);
  if (length === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((v) => v / length);
}

const hashEmbeddings: MockStepFunction = (body) => {
  const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ""];
  return { vectors: inputs.map((text) => hashEmbedding(String(text), body.dimensions ?? DEFAULT_DIMENSIONS)) };
};

function embeddingsResponse(body: MockRequestBody, vectors: number[][]) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ""];
  const tokens = inputs.reduce((sum, text) => sum + countTokens(String(text)), 0);
  return {
    object: "list",
    model: body.model ?? "mock-embedding",
    data: vectors.map((vector, index) => ({
      object: "embedding",
      index,
      // The SDK asks for base64 unless told otherwise: little-endian float32, as OpenAI sends it.
      embedding: body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
    })),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

// ---------------------------------------------------------------------------------------------
// "ace" mode: a valid answer to any reflector or curator request, schema-agnostic. The request's
// JSON schema (response_format, or pasted into the system message in json_object mode) decides
// the shape; every required property gets a type-appropriate value.

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
}

type AceKind = "reflection" | "curation" | "other";

interface AceContext {
  kind: AceKind;
  root: JsonSchema;
  bulletIds: string[];
  section: string;
  topic: string;
  tag: string;
  /** Set while filling the tag entry of one bullet. */
  bulletId?: string;
}

// The ACE id rule (server/ace/ids.ts): a prefix of letters, digits, "_" or "-", then "-" and 5+ digits.
const BULLET_ID = /(?<![\w-])[A-Za-z0-9_][\w-]*?-\d{5,}(?![\w-])/g;
const MAX_DEPTH = 12;

export const aceAnswer: MockStepFunction = (body) => {
  const messages = body.messages ?? [];
  const text = (m: MockChatMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? ""));
  const schema = body.response_format?.json_schema?.schema ?? pastedSchema(messages.filter((m) => m.role === "system").map(text));
  const schemaText = schema ? JSON.stringify(schema) : "";
  // Ids come from the conversation, not from a schema pasted into it.
  const prompt = messages.map(text).join("\n").replace(schemaText, "");
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const userText = lastUser ? text(lastUser) : prompt;
  // The task a trace or reflection is about names the lesson best; else the user turn's first words.
  const task = /^\s*Task:\s*(.+)$/m.exec(userText)?.[1] ?? userText;
  const words = task.replace(BULLET_ID, " ").match(/[A-Za-z][A-Za-z']{2,}/g) ?? [];
  const ctx: AceContext = {
    kind: aceKind(schema, body.response_format?.json_schema?.name ?? "", prompt),
    root: schema ?? {},
    bulletIds: [...new Set(prompt.match(BULLET_ID) ?? [])],
    // A section the prompt offers ('Sections …: "Name", …'), else the playbook's first heading.
    section: /Sections[^:\n]*:\s*"([^"\n]+)"/.exec(prompt)?.[1] ?? /^#{2,3}\s+(.+?)\s*$/m.exec(prompt)?.[1] ?? "general",
    topic: words.slice(0, 8).join(" ") || "this kind of task",
    tag: fnv1a(prompt).toString(16).padStart(8, "0"),
  };
  if (schema) return { content: fill(schema, ctx, undefined, 0) as object };
  if (ctx.kind === "reflection") {
    return {
      content: {
        reasoning: reasoningText(ctx),
        errorIdentification: "none",
        rootCauseAnalysis: "none",
        correctApproach: "Follow the playbook.",
        keyInsight: lessonText(ctx),
        bulletTags: ctx.bulletIds.map((id) => ({ id, tag: "helpful" })),
      },
    };
  }
  if (ctx.kind === "curation") {
    return { content: { reasoning: reasoningText(ctx), operations: [{ type: "ADD", section: ctx.section, content: lessonText(ctx) }] } };
  }
  return { content: {} };
};

/** The schema our json_object fallback pastes at the end of the system message, after "JSON Schema". */
function pastedSchema(systemTexts: string[]): JsonSchema | undefined {
  for (const content of systemTexts) {
    const at = content.lastIndexOf("JSON Schema");
    const start = at === -1 ? -1 : content.indexOf("{", at);
    if (start === -1) continue;
    try {
      return JSON.parse(content.slice(start).trim()) as JsonSchema;
    } catch {
      // not our instruction; keep looking
    }
  }
  return undefined;
}

function aceKind(schema: JsonSchema | undefined, name: string, prompt: string): AceKind {
  const props = schema ? Object.keys(deref(schema, schema, 0)?.properties ?? {}) : [];
  if (props.includes("bulletTags")) return "reflection";
  if (props.includes("operations")) return "curation";
  const hint = `${name}\n${prompt.slice(0, 2000)}`;
  if (/reflect/i.test(hint)) return "reflection";
  if (/curat/i.test(hint)) return "curation";
  return "other";
}

function deref(node: JsonSchema, root: JsonSchema, depth: number): JsonSchema | undefined {
  if (!node.$ref || depth > MAX_DEPTH) return node;
  if (node.$ref === "#") return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(node.$ref);
  const target = match ? root[match[1] as "$defs" | "definitions"]?.[decodeURIComponent(match[2]!)] : undefined;
  return target ? deref(target, root, depth + 1) : undefined;
}

function fill(input: JsonSchema, ctx: AceContext, key: string | undefined, depth: number): unknown {
  const node = deref(input, ctx.root, depth);
  if (!node || depth > MAX_DEPTH) return null;
  if ("const" in node) return node.const;
  if (node.enum?.length) return ["helpful", "ADD"].find((v) => node.enum!.includes(v)) ?? node.enum[0];
  const options = node.anyOf ?? node.oneOf;
  if (options?.length) {
    const resolved = options.map((o) => deref(o, ctx.root, depth + 1)).filter((o): o is JsonSchema => !!o);
    const choice = resolved.find(offersAdd) ?? resolved.find((o) => o.type !== "null") ?? resolved[0];
    return choice ? fill(choice, ctx, key, depth + 1) : null;
  }
  const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : node.properties ? ["object"] : [];
  const type = types.find((t) => t !== "null") ?? types[0];
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const name of node.required ?? Object.keys(node.properties ?? {})) {
        const child = node.properties?.[name];
        out[name] = child ? fill(child, ctx, name, depth + 1) : `mock ${name}`;
      }
      return out;
    }
    case "array": {
      const item = node.items ?? {};
      const min = node.minItems ?? 0;
      const max = node.maxItems ?? Number.POSITIVE_INFINITY;
      if (key === "bulletTags" || (ctx.kind === "reflection" && /tag/i.test(key ?? ""))) {
        const ids = ctx.bulletIds.slice(0, max);
        const tags = ids.map((id) => fill(item, { ...ctx, bulletId: id }, undefined, depth + 1));
        while (tags.length < min) tags.push(fill(item, ctx, undefined, depth + 1));
        return tags;
      }
      // References to other bullets (an ADD's bulletIds) stay empty: the answer must not invent links.
      const count = /ids$/i.test(key ?? "") ? min : Math.min(max, Math.max(min, 1));
      return Array.from({ length: count }, () => fill(item, ctx, singular(key), depth + 1));
    }
    case "string":
      return fitLength(stringFor(key, node, ctx), node);
    case "number":
      return clamp(0.8, node, false);
    case "integer":
      return clamp(1, node, true);
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return `mock ${key ?? "value"}`;
  }
}

/** An option of a union that is the ADD operation of a curator answer. */
function offersAdd(option: JsonSchema): boolean {
  return Object.values(option.properties ?? {}).some((p) => p.const === "ADD" || (p.enum?.length === 1 && p.enum[0] === "ADD"));
}

function singular(key: string | undefined): string | undefined {
  return key?.replace(/s$/, "");
}

function stringFor(key: string | undefined, node: JsonSchema, ctx: AceContext): string {
  const k = key ?? "";
  if (node.format === "date-time") return new Date(0).toISOString();
  if (node.format === "date") return "1970-01-01";
  if (node.format === "uuid") return `00000000-0000-4000-8000-${ctx.tag.padStart(12, "0")}`;
  if (ctx.bulletId && /id$/i.test(k)) return ctx.bulletId;
  if (/^(bullet_?)?id$/i.test(k) || /bulletId/i.test(k)) return ctx.bulletIds[0] ?? `ctx-00001`;
  if (/section/i.test(k)) return ctx.section;
  if (/reason|analysis|rationale|explanation|thought/i.test(k)) return reasoningText(ctx);
  if (/content|text|insight|lesson|bullet/i.test(k)) return lessonText(ctx);
  return `mock ${k || "value"} ${ctx.tag}`;
}

function reasoningText(ctx: AceContext): string {
  return `Mock ${ctx.kind} for a request about ${ctx.topic} (${ctx.tag}).`;
}

/** Unique per prompt, so a curator's dedup does not merge every mock lesson into one. */
function lessonText(ctx: AceContext): string {
  return `When a task is about ${ctx.topic}, check the playbook's worked examples before answering (mock lesson ${ctx.tag}).`;
}

function fitLength(value: string, node: JsonSchema): string {
  let out = value;
  if (node.minLength !== undefined && out.length < node.minLength) out = out.padEnd(node.minLength, ".");
  if (node.maxLength !== undefined && out.length > node.maxLength) out = out.slice(0, node.maxLength);
  return out;
}

function clamp(preferred: number, node: JsonSchema, integer: boolean): number {
  const step = integer ? 1 : 0.01;
  const low = node.minimum ?? (node.exclusiveMinimum !== undefined ? node.exclusiveMinimum + step : undefined);
  const high = node.maximum ?? (node.exclusiveMaximum !== undefined ? node.exclusiveMaximum - step : undefined);
  let value = preferred;
  if (low !== undefined && value < low) value = integer ? Math.ceil(low) : low;
  if (high !== undefined && value > high) value = integer ? Math.floor(high) : high;
  return value;
}

// ---------------------------------------------------------------------------------------------
// Standalone: tsx server/testing/mock-openai.ts --port 4010 --mode ace

function flag(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  if (at !== -1) return args[at + 1];
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

async function main(args: string[]): Promise<void> {
  const mode = flag(args, "mode") ?? "ace";
  if (mode !== "ace" && mode !== "script") throw new Error(`--mode must be "ace" or "script", not "${mode}".`);
  const port = Number(flag(args, "port") ?? 4010);
  const latencyMs = Number(flag(args, "latency-ms") ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error("--port must be a port number (0-65535).");
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new Error("--latency-ms must be a number of milliseconds.");
  const mock = await startMockOpenAi({
    port,
    host: flag(args, "host") ?? "127.0.0.1",
    mode,
    latencyMs,
    rejectJsonSchema: args.includes("--reject-json-schema"),
  });
  console.log(`Mock OpenAI (${mode} mode) listening: OPENAI_BASE_URL=${mock.url}`);
  const stop = () => void mock.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolvePath(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
