// Coding agents over MCP (issue 17), with the SDK's own Client, on embedded PGlite and PostgreSQL:
// over Streamable HTTP against the /api/mcp route handler (no key on a laptop; 401 before any tool
// runs once accounts exist; the key's scope and playbooks), and over stdio by spawning the CLI
// (`ace mcp`) on the database itself and relayed through a running server. Each tool is called and
// its effect checked where it lands: the trace stored and reflected by the offline reflector, the
// lesson pending in the review queue with origin "agent", the bullet that matches a query ranked
// first on the AppWorld playbook. Every bad input of the issue is a tool error naming the problem,
// with nothing written.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { loadAuthSettings, setAuthSettings } from "@/server/auth/config";
import { openDatabase, serveDb, type Db } from "@/server/db/client";
import { JobWorker } from "@/server/jobs/worker";
import { offlineProvider, useRunProvider } from "@/server/runs/providers";
import { runHandlers } from "@/server/runs/service";
import { openTestDatabase, testEngines, type TestDatabase, type TestEngine } from "@/server/testing/db";
import { SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { playbookFixture } from "@/server/testing/playbook-files";
import { callerAs } from "@/server/trpc/callers";

const route = await import("@/app/api/mcp/route");
const { GET: getContext } = await import("@/app/api/v1/playbooks/[name]/context/route");

const ROOT = path.resolve(import.meta.dirname, "../..");
const APPWORLD = readFileSync(playbookFixture("ace-appworld__appworld_offline_trained_no_gt_playbook.txt"), "utf8");
const SUPPORT = "support agent";
const TOOLS = ["get_playbook", "propose_lesson", "record_outcome", "search_bullets"];

type Handler = (request: Request) => Promise<Response>;
const HANDLERS: Record<string, Handler> = { POST: route.POST, GET: route.GET, DELETE: route.DELETE };

/** fetch for the SDK's transport: the request goes straight to the route handler, as Next.js would pass it. */
async function routeFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(url, init);
  const handler = HANDLERS[request.method];
  if (!handler) return new Response(null, { status: 405 });
  return handler(request);
}

async function httpClient({ query = "", key }: { query?: string; key?: string } = {}): Promise<Client> {
  const client = new Client({ name: "ace-test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`http://localhost/api/mcp${query}`), {
    fetch: routeFetch,
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { result, text: textOf(result), structured: result.structuredContent as Record<string, unknown> | undefined };
}

/** A call that must fail as a tool error (not a protocol error) whose message matches. */
async function expectToolError(client: Client, name: string, args: Record<string, unknown>, message: RegExp) {
  const { result, text } = await call(client, name, args);
  expect(result.isError, `${name} ${JSON.stringify(args)} should fail, got: ${text}`).toBe(true);
  expect(text).toMatch(message);
}

/** The SDK's transport fails the connection with the HTTP status and the server's message. */
async function expectHttpError(promise: Promise<unknown>, status: number, message: RegExp) {
  await expect(promise).rejects.toSatisfy((error: unknown) => {
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(status);
    expect((error as Error).message).toMatch(message);
    return true;
  });
}

async function counts(db: Db) {
  const [traces, deltas, audit] = await Promise.all([db.trace.count(), db.delta.count(), db.auditEntry.count()]);
  return { traces, deltas, audit };
}

function worker(db: Db) {
  return new JobWorker(db, {
    handlers: runHandlers(),
    concurrency: 1,
    backoff: { baseMs: 10, maxMs: 40, jitter: 0 },
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
  });
}

describe.each(testEngines())("MCP over Streamable HTTP on %s", (engine) => {
  let database: TestDatabase;
  let local: ReturnType<typeof callerAs>;
  let supportId: string;

  beforeAll(async () => {
    database = await openTestDatabase(engine);
    serveDb(database.db);
  });
  afterAll(async () => {
    serveDb(undefined);
    setAuthSettings(undefined);
    await database?.close();
  });
  beforeEach(async () => {
    await database.reset();
    setAuthSettings(loadAuthSettings({}));
    useRunProvider(database.db, offlineProvider());
    local = callerAs(database.db, "local");
    ({ playbookId: supportId } = await local.playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name: SUPPORT },
    }));
  });

  it("lists the four tools with input schemas, both resource templates, the playbooks and both prompts", async () => {
    const client = await httpClient();
    expect(client.getServerVersion()).toMatchObject({ name: "ace-studio" });
    expect(client.getInstructions()).toMatch(/search_bullets.*record_outcome/s);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
    }
    const search = tools.find((tool) => tool.name === "search_bullets")!;
    expect(search.inputSchema.required).toEqual(["query"]);
    expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(["k", "playbook", "query", "section"]);
    const record = tools.find((tool) => tool.name === "record_outcome")!;
    expect((record.inputSchema.properties as Record<string, { enum?: string[] }>).outcome?.enum).toEqual(["success", "failure", "unknown"]);

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate).sort()).toEqual(["bullet://{name}/{id}", "playbook://{name}"]);
    const { resources } = await client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: "playbook://support%20agent", name: SUPPORT, mimeType: "text/plain" })]);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => [prompt.name, prompt.title]).sort()).toEqual([
      ["after_task", "After a task"],
      ["before_task", "Before a task"],
    ]);
    await client.close();
  });

  it("search_bullets ranks first the AppWorld bullet that matches the query, with its section and counters", async () => {
    await local.playbook.import({ content: APPWORLD, format: "ace-plain", target: { kind: "new", name: "appworld" } });
    const client = await httpClient({ query: "?playbook=appworld" });
    const cases = [
      { query: "delete text and voice messages from a phone number", first: "shr-00125" },
      { query: "use a large page_limit with paginated APIs so fewer calls are made", first: "shr-00128" },
      { query: "refund a payment by sending the same amount back to the original recipient", first: "shr-00122" },
    ];
    for (const { query, first } of cases) {
      const { result, structured } = await call(client, "search_bullets", { query, k: 3 });
      expect(result.isError).toBeFalsy();
      const bullets = structured?.bullets as { id: string; score: number; section: string; helpful: number }[];
      expect(bullets.map((bullet) => bullet.id)[0], query).toBe(first);
      expect(bullets).toHaveLength(3);
      expect(bullets[0]!.score).toBeGreaterThan(bullets[1]!.score);
    }
    const { text, structured } = await call(client, "search_bullets", { query: "pagination", section: "verification checklist", k: 50 });
    const inSection = structured?.bullets as { section: string }[];
    expect(inSection.length).toBeGreaterThan(0);
    expect(new Set(inSection.map((bullet) => bullet.section))).toEqual(new Set(["VERIFICATION CHECKLIST"]));
    expect(text).toMatch(/^\d+ bullets? of "appworld" \(version 1\), most relevant first/);
    await client.close();
  });

  it("get_playbook gives what the context endpoint gives, within the budget", async () => {
    const client = await httpClient();
    for (const budget of [undefined, 40]) {
      const { result, text, structured } = await call(client, "get_playbook", { playbook: SUPPORT, ...(budget ? { budget } : {}) });
      expect(result.isError).toBeFalsy();
      const http = await getContext(
        new Request(`http://localhost/api/v1/playbooks/support%20agent/context?format=text${budget ? `&budget=${budget}` : ""}`),
        { params: Promise.resolve({ name: SUPPORT }) },
      );
      expect(text).toBe(await http.text());
      expect(structured).toMatchObject({ playbook: SUPPORT, version: 1, bulletCount: 4 });
      if (budget) expect(structured!.tokens as number).toBeLessThanOrEqual(budget);
      if (budget) expect(structured!.omittedBullets as number).toBeGreaterThan(0);
    }
    const plain = await call(client, "get_playbook", { playbook: SUPPORT, counters: false });
    expect(plain.text).toContain("[str-00001] Always verify data types");
    expect(plain.text).not.toContain("helpful=");
    await client.close();
  });

  it("record_outcome stores a trace the offline reflector tags, audited as the caller", async () => {
    const client = await httpClient({ query: `?playbook=${encodeURIComponent(SUPPORT)}` });
    const { result, structured } = await call(client, "record_outcome", {
      task: "Add retries to the payment client",
      outcome: "success",
      citedBulletIds: ["str-00001", "mis-00004"],
      summary: "Checked types first [str-00001]; converted timezones [mis-00004].",
      testResults: "12 passed",
      feedback: "Reviewer: looks good.",
      externalId: "claude-session-1",
    });
    expect(result.isError).toBeFalsy();
    expect(structured).toMatchObject({ status: "created", playbook: SUPPORT, citedBulletIds: ["str-00001", "mis-00004"] });
    const trace = await database.db.trace.findUniqueOrThrow({ where: { id: structured!.traceId as string } });
    expect(trace).toMatchObject({
      playbookId: supportId,
      externalId: "claude-session-1",
      task: "Add retries to the payment client",
      outcome: "success",
      citedBulletIds: ["str-00001", "mis-00004"],
      output: "Checked types first [str-00001]; converted timezones [mis-00004].",
      feedback: { notes: "Reviewer: looks good.", testResults: "12 passed" },
      metadata: { via: "mcp" },
    });
    const audit = await database.db.auditEntry.findFirstOrThrow({ where: { action: "trace.ingest" } });
    expect(audit).toMatchObject({ actorKind: "local", playbookId: supportId });

    // The same externalId again stores nothing new.
    const again = await call(client, "record_outcome", {
      task: "Add retries to the payment client",
      outcome: "success",
      externalId: "claude-session-1",
    });
    expect(again.structured).toMatchObject({ status: "duplicate", traceId: trace.id });
    expect(again.text).toMatch(/stored before/);

    await worker(database.db).drain({ timeoutMs: 60_000 });
    const reflected = await database.db.trace.findUniqueOrThrow({ where: { id: trace.id } });
    expect(reflected.reflectedAt).toBeInstanceOf(Date);
    const runs = await database.db.run.findMany({ where: { playbookId: supportId, role: "reflector" } });
    expect(runs.map((run) => run.status)).toEqual(["succeeded"]);
    // Success tags the cited bullets helpful: str-00001 had 3, mis-00004 had 2.
    const bullets = await local.playbook.bullets({ playbookId: supportId, limit: 10 });
    const helpful = Object.fromEntries(bullets.items.map((bullet) => [bullet.externalId, bullet.helpful]));
    expect(helpful).toMatchObject({ "str-00001": 4, "mis-00004": 3, "str-00002": 1 });
    await client.close();
  });

  it("propose_lesson leaves a pending delta of origin agent in the queue, even where confident deltas auto-apply", async () => {
    await local.playbook.updateSettings({ playbookId: supportId, settings: { autoApply: true, autoApplyConfidence: 0 } });
    const { version } = await local.playbook.get({ playbookId: supportId });
    const client = await httpClient();
    const recorded = await call(client, "record_outcome", { playbook: SUPPORT, task: "Fix the flaky import test", outcome: "failure" });
    const traceId = recorded.structured!.traceId as string;
    const { result, structured } = await call(client, "propose_lesson", {
      playbook: SUPPORT,
      content: "Pin the clock in tests that compare dates, so they do not fail around midnight.",
      section: "Common mistakes to avoid",
      rationale: "The import test failed at 23:59 because it compared today's date twice.",
      traceId,
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(structured).toMatchObject({ status: "pending", section: "common_mistakes_to_avoid", newSection: false, nearDuplicates: [] });
    const queue = await local.delta.list({ playbookId: supportId, status: "pending", limit: 10 });
    const agent = queue.items.filter((delta) => delta.origin === "agent");
    expect(agent).toHaveLength(1);
    expect(agent[0]!.id).toBe(structured!.deltaId);
    const delta = await database.db.delta.findUniqueOrThrow({
      where: { id: structured!.deltaId as string },
      include: { operations: true },
    });
    expect(delta).toMatchObject({ origin: "agent", status: "pending", confidence: null, appliedVersion: null });
    expect(delta.evidence).toMatchObject({ traceIds: [traceId] });
    expect(delta.operations.map((operation) => operation.payload)).toEqual([
      {
        type: "add",
        section: "common_mistakes_to_avoid",
        content: "Pin the clock in tests that compare dates, so they do not fail around midnight.",
      },
    ]);
    expect((await local.playbook.get({ playbookId: supportId })).version).toBe(version);
    expect(await database.db.auditEntry.count({ where: { action: "delta.propose", playbookId: supportId } })).toBe(1);

    // A section the playbook lacks is proposed with it; a near-duplicate is named for the agent.
    const fresh = await call(client, "propose_lesson", {
      playbook: SUPPORT,
      content: "Always verify the data types before processing numeric fields.",
      section: "Testing",
      rationale: "Seen again today.",
    });
    expect(fresh.structured).toMatchObject({
      newSection: true,
      section: "Testing",
      nearDuplicates: [expect.objectContaining({ id: "str-00001" })],
    });
    expect(fresh.text).toMatch(/resembles \[str-00001\]/);
    const second = await database.db.delta.findUniqueOrThrow({
      where: { id: fresh.structured!.deltaId as string },
      include: { operations: true },
    });
    expect(second.operations.map((operation) => (operation.payload as { type: string }).type).sort()).toEqual(["add", "add_section"]);
    await client.close();
  });

  it("reads playbook:// as the compiled context and bullet:// as the bullet, and gives both prompts", async () => {
    const client = await httpClient();
    const playbook = await client.readResource({ uri: "playbook://support%20agent" });
    const context = await call(client, "get_playbook", { playbook: SUPPORT });
    expect(playbook.contents[0]).toMatchObject({ uri: "playbook://support%20agent", mimeType: "text/plain", text: context.text });
    const bullet = await client.readResource({ uri: "bullet://support%20agent/str-00002" });
    expect(JSON.parse((bullet.contents[0] as { text: string }).text)).toEqual({
      playbook: SUPPORT,
      version: 1,
      id: "str-00002",
      section: "strategies_and_insights",
      content: "Retry failed API calls immediately without any backoff.",
      status: "active",
      helpful: 1,
      harmful: 4,
      neutral: 0,
      mergedInto: null,
    });
    await expect(client.readResource({ uri: "bullet://support%20agent/str-09999" })).rejects.toThrow(
      /No bullet \[str-09999\] in the playbook "support agent"/,
    );
    await expect(client.readResource({ uri: "playbook://nope" })).rejects.toThrow(/Unknown playbook "nope"/);

    const before = await client.getPrompt({ name: "before_task", arguments: { task: "Add a CSV export", playbook: SUPPORT } });
    expect(textOf({ content: before.messages.map((message) => message.content) })).toMatch(
      /Add a CSV export.*"support agent".*search_bullets.*get_playbook.*\[str-00001\]/s,
    );
    const after = await client.getPrompt({ name: "after_task", arguments: { outcome: "failure" } });
    expect(textOf({ content: after.messages.map((message) => message.content) })).toMatch(
      /record_outcome.*\(here: failure\).*propose_lesson.*traceId/s,
    );
    await client.close();
  });

  it("refuses every bad input of the issue as a tool error naming the problem, and writes nothing", async () => {
    const client = await httpClient();
    const before = await counts(database.db);
    await expectToolError(
      client,
      "search_bullets",
      { playbook: "nope", query: "x" },
      /Unknown playbook "nope".*The playbooks: "support agent"/,
    );
    await expectToolError(client, "search_bullets", { query: "x" }, /Name the playbook: pass playbook, one of "support agent"/);
    await expectToolError(client, "search_bullets", { playbook: "sup\u0000port", query: "x" }, /^playbook: has a NUL character/);
    await expectToolError(
      client,
      "record_outcome",
      { playbook: "sup\u0000port", task: "x", outcome: "success" },
      /^playbook: has a NUL character/,
    );
    await expectToolError(client, "search_bullets", { playbook: SUPPORT, query: "   " }, /query is empty/);
    for (const k of [0, 51, 2.5])
      await expectToolError(client, "search_bullets", { playbook: SUPPORT, query: "retry", k }, /k is .*from 1 to 50/);
    await expectToolError(
      client,
      "search_bullets",
      { playbook: SUPPORT, query: "retry", section: "nowhere" },
      /Unknown section "nowhere".*"strategies_and_insights"/,
    );
    await expectToolError(client, "get_playbook", { playbook: SUPPORT, budget: -1 }, /budget cannot be negative/);
    await expectToolError(
      client,
      "record_outcome",
      { playbook: SUPPORT, task: "x", outcome: "success", citedBulletIds: ["str-00001", "str-09999", "zzz-1"] },
      /No bullet \[str-09999\], \[zzz-1\] in the playbook "support agent".*Nothing was stored/,
    );
    await expectToolError(
      client,
      "record_outcome",
      { playbook: SUPPORT, task: "x", outcome: "partial" },
      /outcome is one of "success", "failure", "unknown"/,
    );
    await expectToolError(client, "record_outcome", { playbook: SUPPORT, task: "x" }, /outcome/);
    await expectToolError(client, "record_outcome", { playbook: "nope", task: "x", outcome: "success" }, /Unknown playbook "nope"/);
    await expectToolError(client, "propose_lesson", { playbook: SUPPORT, content: " ", section: "x", rationale: "y" }, /content is empty/);
    await expectToolError(
      client,
      "propose_lesson",
      { playbook: SUPPORT, content: "A lesson.", section: "x", rationale: "" },
      /rationale is empty/,
    );
    await expectToolError(
      client,
      "propose_lesson",
      { playbook: SUPPORT, content: "word ".repeat(300), section: "strategies_and_insights", rationale: "long" },
      /The lesson was not proposed: .*1,000/,
    );
    await expectToolError(
      client,
      "propose_lesson",
      { playbook: SUPPORT, content: "A lesson.", section: "x", rationale: "y", traceId: "t-1" },
      /traceId is the id record_outcome returned/,
    );
    expect(await counts(database.db)).toEqual(before);
    await client.close();
  });

  describe("once an account exists (sign-in and API keys required)", () => {
    beforeEach(async () => {
      await local.users.create({ email: "ada@example.com", role: "admin", password: "correct horse battery staple" });
    });

    const key = (scopes: ("mcp" | "context:read")[], playbooks: "all" | string[] = "all") =>
      local.apiKeys.create({ name: `agent ${scopes.join(" ")}`, scopes, playbooks, rateLimitPerMinute: null, expiresInDays: null });

    it("answers 401 before any tool runs without a valid key, and 403 to a key without the mcp scope", async () => {
      const before = await counts(database.db);
      await expectHttpError(httpClient(), 401, /needs an API key/);
      const call = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "record_outcome", arguments: { playbook: SUPPORT, task: "x", outcome: "success" } },
      };
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      for (const authorization of [undefined, "Bearer ace_aaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]) {
        const response = await route.POST(
          new Request("http://localhost/api/mcp", {
            method: "POST",
            headers: { ...headers, ...(authorization ? { authorization } : {}) },
            body: JSON.stringify(call),
          }),
        );
        expect(response.status).toBe(401);
        expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      }
      expect((await counts(database.db)).traces).toBe(before.traces);
      expect(await database.db.trace.count()).toBe(0);
      const contextOnly = await key(["context:read"]);
      await expectHttpError(httpClient({ key: contextOnly.secret }), 403, /does not have the scope \\"mcp\\"/);
    });

    it("a key with the mcp scope uses the tools, audited as that key, and only on its playbooks", async () => {
      const { playbookId: otherId } = await local.playbook.import({
        content: SMALL_PLAYBOOK,
        format: "ace",
        target: { kind: "new", name: "other" },
      });
      const agentKey = await key(["mcp"], [otherId]);
      const client = await httpClient({ key: agentKey.secret });
      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.name)).toEqual(["other"]);
      await expectToolError(client, "search_bullets", { playbook: SUPPORT, query: "retry" }, /may not touch the playbook "support agent"/);
      const lesson = await call(client, "propose_lesson", {
        playbook: "other",
        content: "Log the request id with every error.",
        section: "Common mistakes to avoid",
        rationale: "Hard to trace.",
      });
      expect(lesson.result.isError, lesson.text).toBeFalsy();
      const delta = await database.db.delta.findUniqueOrThrow({ where: { id: lesson.structured!.deltaId as string } });
      expect(delta).toMatchObject({ origin: "agent", status: "pending", author: 'API key "agent mcp"' });
      const audit = await database.db.auditEntry.findFirstOrThrow({ where: { action: "delta.propose" } });
      expect(audit).toMatchObject({ actorKind: "apikey", actorId: agentKey.id, playbookId: otherId });
      await client.close();
    });
  });
});

// ---- stdio: the CLI as a coding agent starts it ------------------------------------------------

/** The environment of a CLI process on this engine's database (never DATABASE_URL of the outer run). */
function cliEnv(engine: TestEngine, dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  delete env.DATABASE_URL;
  delete env.ACE_API_KEY;
  env.DATA_DIR = dataDir;
  env.ACE_RUN_CONCURRENCY = "1";
  env.ACE_LLM_PROVIDER = "offline";
  if (engine === "postgres") env.DATABASE_URL = inject("testPostgresUrl") as string;
  return { ...env, ...extra };
}

function stdioClient(env: Record<string, string>, args: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "server/cli/ace.ts"), "mcp", ...args],
    env,
    cwd: ROOT,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { transport, stderr: () => stderr };
}

/** Starting the CLI compiles its module graph with tsx: seconds on an idle machine, a minute on a busy one. */
const STDIO_TIMEOUT_MS = 240_000;

/** Runs node with the arguments, the text on stdin and the environment; resolves with what it wrote. */
function runNode(
  args: string[],
  input: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: env as NodeJS.ProcessEnv, cwd: ROOT, stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Runs the work; a failure carries what the CLI processes wrote on stderr. */
async function withStderrOf(stderrs: readonly (() => string)[], work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const written = stderrs.map((stderr, index) => `--- CLI process ${index + 1} stderr ---\n${stderr()}`).join("\n");
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${written}`, { cause: error });
  }
}

/** Polls until the check passes (the stdio process's own worker reflects in the background). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe.each(testEngines())("MCP over stdio (the CLI) on %s", (engine) => {
  let dataDir: string;
  let database: TestDatabase | null = null;

  /** The engine's database for the test's own reads and writes: the CLI's PGlite folder is opened only while no CLI runs. */
  async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
    if (engine === "postgres") return work(database!.db);
    const handle = await openDatabase({ kind: "pglite", dataDir });
    try {
      return await work(handle.db);
    } finally {
      await handle.close();
    }
  }

  // Migrating a new PGlite folder takes seconds on an idle machine and minutes on a busy one: once,
  // here, so that a hook cut short never leaves a half-migrated folder to the next test.
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "ace-mcp-stdio-"));
    if (engine === "postgres") database = await openTestDatabase(engine);
    else await withDatabase(async () => undefined);
  }, STDIO_TIMEOUT_MS);
  afterAll(async () => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await database?.reset();
    await withDatabase(async (db) => {
      if (engine === "pglite") await db.$executeRawUnsafe(`TRUNCATE "Playbook" CASCADE`);
      await callerAs(db, "local").playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: SUPPORT } });
    });
  }, STDIO_TIMEOUT_MS);

  it(
    "serves the tools on the database itself; nothing but JSON-RPC on stdout; the trace is reflected and the lesson queued",
    async () => {
      const { transport, stderr } = stdioClient(cliEnv(engine, dataDir), ["--playbook", SUPPORT]);
      const client = new Client({ name: "claude-code-like", version: "1.0.0" });
      // The SDK's reader fails the connection on any stdout line that is not JSON-RPC.
      const protocolErrors: Error[] = [];
      transport.onerror = (error) => protocolErrors.push(error);
      await client.connect(transport, { timeout: STDIO_TIMEOUT_MS });
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(["playbook://support%20agent"]);
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual(["after_task", "before_task"]);

      const search = await call(client, "search_bullets", { query: "timezone conversions when comparing dates", k: 2 });
      expect((search.structured!.bullets as { id: string }[])[0]!.id).toBe("mis-00004");
      const cut = (await call(client, "get_playbook", { budget: 40 })).structured!;
      expect(cut).toMatchObject({ playbook: SUPPORT, bulletCount: 4 });
      expect(cut.tokens as number).toBeLessThanOrEqual(40);
      expect(cut.omittedBullets as number).toBeGreaterThan(0);
      const recorded = await call(client, "record_outcome", {
        task: "Compare two invoice dates",
        outcome: "failure",
        citedBulletIds: ["mis-00004"],
        errors: ["AssertionError: dates differ by one day"],
      });
      expect(recorded.result.isError, recorded.text).toBeFalsy();
      const lesson = await call(client, "propose_lesson", {
        content: "Compare dates in UTC, never in the machine's local zone.",
        section: "common_mistakes_to_avoid",
        rationale: "The comparison failed on a machine in UTC+2.",
        traceId: recorded.structured!.traceId,
      });
      expect(lesson.result.isError, lesson.text).toBeFalsy();
      await expectToolError(client, "record_outcome", { task: "x", outcome: "done" }, /outcome is one of/);
      // The process's own worker reflects the failure: the cited bullet is tagged harmful.
      await eventually(async () => {
        const read = await client.readResource({ uri: "bullet://support%20agent/mis-00004" });
        return (JSON.parse((read.contents[0] as { text: string }).text) as { harmful: number }).harmful === 1;
      }, "the reflector tagged [mis-00004]");
      await client.close();
      expect(protocolErrors).toEqual([]);
      expect(stderr()).toMatch(/ACE Studio MCP server on stdio for the playbook "support agent"/);

      await withDatabase(async (db) => {
        const trace = await db.trace.findUniqueOrThrow({ where: { id: recorded.structured!.traceId as string } });
        expect(trace).toMatchObject({
          outcome: "failure",
          citedBulletIds: ["mis-00004"],
          feedback: { errors: ["AssertionError: dates differ by one day"] },
        });
        expect(trace.reflectedAt).toBeInstanceOf(Date);
        const delta = await db.delta.findUniqueOrThrow({ where: { id: lesson.structured!.deltaId as string } });
        expect(delta).toMatchObject({ origin: "agent", status: "pending" });
        expect(delta.author).toMatch(/^cli \(/);
        expect(
          await db.auditEntry.count({ where: { action: { in: ["trace.ingest", "delta.propose"] }, actorKind: "local" } }),
        ).toBeGreaterThanOrEqual(2);
      });
    },
    STDIO_TIMEOUT_MS,
  );

  describe("through a running server", () => {
    let server: Server;
    let url: string;
    let served: TestDatabase;

    /** A minimal HTTP server in front of the route handler, as next start is in front of it. */
    function nodeRequest(request: IncomingMessage, body: Buffer): Request {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (name === "host" || value === undefined) continue; // made in-process: the local operator, as on a laptop
        headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      return new Request(`http://127.0.0.1${request.url}`, {
        method: request.method,
        headers,
        body: request.method === "POST" ? new Uint8Array(body) : undefined,
      });
    }

    beforeAll(async () => {
      served = engine === "postgres" ? database! : await openTestDatabase(engine);
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          const handler = HANDLERS[request.method ?? ""] ?? route.POST;
          void handler(nodeRequest(request, Buffer.concat(chunks))).then(async (answer) => {
            response.writeHead(answer.status, Object.fromEntries(answer.headers));
            response.end(Buffer.from(await answer.arrayBuffer()));
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      serveDb(undefined);
      setAuthSettings(undefined);
      if (engine !== "postgres") await served?.close();
    });
    beforeEach(async () => {
      setAuthSettings(loadAuthSettings({}));
      serveDb(served.db);
      if (engine !== "postgres") {
        await served.reset();
        await callerAs(served.db, "local").playbook.import({
          content: SMALL_PLAYBOOK,
          format: "ace",
          target: { kind: "new", name: SUPPORT },
        });
      }
    });

    it(
      "relays every message to the server's /api/mcp, with ACE_API_KEY once keys are required",
      async () => {
        const started: (() => string)[] = [];
        const stdio = (env: Record<string, string>, args: string[]) => {
          const spawned = stdioClient(env, args);
          started.push(spawned.stderr);
          return spawned;
        };
        // A failure shows what the CLI processes wrote on stderr.
        await withStderrOf(started, async () => {
          const { transport } = stdio(cliEnv(engine, dataDir), ["--server", url, "--playbook", SUPPORT]);
          const client = new Client({ name: "cursor-like", version: "1.0.0" });
          await client.connect(transport, { timeout: STDIO_TIMEOUT_MS });
          const recorded = await call(client, "record_outcome", {
            task: "Rename a column",
            outcome: "success",
            citedBulletIds: ["str-00001"],
          });
          expect(recorded.result.isError, recorded.text).toBeFalsy();
          expect(await served.db.trace.count({ where: { id: recorded.structured!.traceId as string } })).toBe(1);
          await expectToolError(client, "search_bullets", { query: "retry", k: 0 }, /k is out of range/);
          await client.close();

          // Keys required: without one every call is answered with the server's 401; with one it works.
          const admin = callerAs(served.db, "local");
          await admin.users.create({ email: "ada@example.com", role: "admin", password: "correct horse battery staple" });
          const refused = stdio(cliEnv(engine, dataDir), ["--server", url]);
          const refusal = await new Client({ name: "no-key", version: "1" }).connect(refused.transport, { timeout: STDIO_TIMEOUT_MS }).then(
            () => null,
            (error: unknown) => error,
          );
          expect(String((refusal as Error | null)?.message), refused.stderr()).toMatch(/401.*ACE_API_KEY/s);
          await refused.transport.close();
          const created = await admin.apiKeys.create({
            name: "cursor",
            scopes: ["mcp"],
            playbooks: "all",
            rateLimitPerMinute: null,
            expiresInDays: null,
          });
          const keyed = stdio(cliEnv(engine, dataDir, { ACE_API_KEY: created.secret }), ["--server", url, "--playbook", SUPPORT]);
          const withKey = new Client({ name: "with-key", version: "1" });
          await withKey.connect(keyed.transport, { timeout: STDIO_TIMEOUT_MS });
          const lesson = await call(withKey, "propose_lesson", {
            content: "Name migrations after what they change.",
            section: "strategies_and_insights",
            rationale: "Found a migration named fix2.",
          });
          expect(lesson.result.isError, lesson.text).toBeFalsy();
          expect(await served.db.delta.findUniqueOrThrow({ where: { id: lesson.structured!.deltaId as string } })).toMatchObject({
            origin: "agent",
            author: 'API key "cursor"',
          });
          await withKey.close();
        });
      },
      STDIO_TIMEOUT_MS,
    );

    it("the Claude Code hooks call search_bullets on a prompt and record_outcome when Claude stops", async () => {
      const hook = (mode: string, input: unknown) =>
        runNode([path.join(ROOT, "public/examples/claude-code/.claude/ace-hook.mjs"), mode], JSON.stringify(input), {
          ...cliEnv(engine, dataDir),
          ACE_STUDIO_URL: url,
          ACE_PLAYBOOK: SUPPORT,
        });
      const prompt = await hook("prompt", { session_id: "s1", prompt: "Fix the timezone conversions when we compare dates" });
      expect(prompt.stderr).toBe("");
      expect(prompt.stdout).toMatch(
        /^Lessons from the ACE Studio playbook "support agent".*\n\[mis-00004\] helpful=2 harmful=0 :: Don't forget timezone/s,
      );

      const transcript = path.join(dataDir, "transcript.jsonl");
      const turn = [
        { type: "user", message: { role: "user", content: "Fix the timezone conversions when we compare dates" } },
        {
          type: "assistant",
          message: { role: "assistant", content: [{ type: "text", text: "Converted both dates to UTC first, as [mis-00004] says." }] },
        },
      ];
      writeFileSync(transcript, turn.map((entry) => JSON.stringify(entry)).join("\n"));
      const before = await served.db.trace.count();
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const stop = await hook("stop", { session_id: "s1", transcript_path: transcript, stop_hook_active: false });
        expect(stop.stderr).toBe("");
      }
      const traces = await served.db.trace.findMany({ where: { externalId: "claude-code:s1:0" } });
      expect(traces).toHaveLength(1);
      expect(traces[0]).toMatchObject({
        outcome: "unknown",
        task: "Fix the timezone conversions when we compare dates",
        citedBulletIds: ["mis-00004"],
      });
      expect(await served.db.trace.count()).toBe(before + 1);

      // Claude reported the outcome itself: the hook adds nothing.
      const reported = [
        ...turn,
        {
          type: "assistant",
          message: { role: "assistant", content: [{ type: "tool_use", name: "mcp__ace-studio__record_outcome", input: {} }] },
        },
      ];
      writeFileSync(transcript, reported.map((entry) => JSON.stringify(entry)).join("\n"));
      await hook("stop", { session_id: "s2", transcript_path: transcript, stop_hook_active: false });
      expect(await served.db.trace.count()).toBe(before + 1);
      // A failure never blocks Claude: a message on stderr, exit 0.
      const down = await runNode(
        [path.join(ROOT, "public/examples/claude-code/.claude/ace-hook.mjs"), "prompt"],
        JSON.stringify({ prompt: "x" }),
        {
          ...cliEnv(engine, dataDir),
          ACE_STUDIO_URL: url,
          ACE_PLAYBOOK: "nope",
        },
      );
      expect(down).toMatchObject({ code: 0, stdout: "" });
      expect(down.stderr).toMatch(/ace-hook \(prompt\): .*Unknown playbook "nope"/);
    });
  });
});
