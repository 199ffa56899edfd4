// search_bullets over the 10,000-bullet playbook as a coding agent calls it: the MCP SDK's Client
// over Streamable HTTP to the /api/mcp route handler (the API-key wrapper, a stateless McpServer
// per request, the SDK's JSON-RPC on both sides), minus the socket. The first call builds the
// near-duplicate index the search reads (the delta engine keeps it with the playbook's state) and is
// timed once on its own.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { POST } from "@/app/api/mcp/route";
import { serveDb } from "@/server/db/client";
import { forgetEngineStates } from "@/server/deltas/engine-state";
import { getPlaybook } from "@/server/playbooks/browse";
import { CALL_TIMEOUT_MS, check, guarded, recordSamples, type SyntheticBenchmark } from "./database";
import { measure, timeOnce, type RunPlan } from "./measure";
import { formatMs, type Target } from "./report";
import { summarize } from "./stats";
import { seededRandom, type SyntheticPlaybook } from "./synthetic";

export const MCP_SEARCH_TARGET: Target = { maxMs: 20 };
const K = 10;
const QUERIES = 200;

/** Queries a coding agent might send: five to nine consecutive words of a bullet, from a seeded pick. */
function queriesOf(synthetic: SyntheticPlaybook): string[] {
  const contents = [...synthetic.text.matchAll(/ :: (.*)$/gm)].map((match) => match[1] ?? "");
  const random = seededRandom(0x5ea7c4);
  return Array.from({ length: QUERIES }, () => {
    const words = (contents[Math.floor(random() * contents.length)] ?? "").split(" ");
    const length = 5 + Math.floor(random() * 5);
    const start = Math.floor(random() * Math.max(1, words.length - length));
    return words.slice(start, start + length).join(" ");
  });
}

async function connect(): Promise<Client> {
  const client = new Client({ name: "ace-bench", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/api/mcp"), {
    fetch: (url, init) => POST(new Request(url, init)),
  });
  await client.connect(transport);
  return client;
}

export const mcpBenchmarks: SyntheticBenchmark = async (engine, synthetic, playbookId, plan, record) => {
  const count = synthetic.bulletCount.toLocaleString("en");
  const queries = queriesOf(synthetic);
  let client: Client | null = null;
  serveDb(engine.db);
  try {
    const { name } = await getPlaybook(engine.db, playbookId);
    const search = async (query: string) => {
      const result = (await client!.callTool({ name: "search_bullets", arguments: { playbook: name, query, k: K } })) as CallToolResult;
      check(!result.isError, `search_bullets failed: ${JSON.stringify(result.content)}`);
      return (result.structuredContent as { bullets: { id: string }[] }).bullets;
    };

    const cold = `MCP search_bullets, ${count} bullets: first call (builds the index), once`;
    const ready = await guarded(record, cold, engine.name, async () => {
      client = await connect();
      forgetEngineStates(engine.db);
      const ms = await timeOnce(() => search(queries[0] as string), CALL_TIMEOUT_MS, cold);
      recordSamples(record, cold, engine.name, [ms]);
    });
    if (!ready) return;

    const benchmark = `MCP search_bullets, ${count} bullets: k=${K} over Streamable HTTP`;
    await guarded(record, benchmark, engine.name, async () => {
      const found = await search(queries[1] as string);
      check(found.length === K, `expected ${K} bullets for "${queries[1]}", got ${found.length}`);
      // Wall time is the figure; this process's CPU time per call beside it says what a call costs on a
      // machine that is not shared (PostgreSQL's own work is not in it).
      const cpu: number[] = [];
      const samples = await measure(
        async (call) => {
          const before = process.cpuUsage();
          await search(queries[call % queries.length] as string);
          const used = process.cpuUsage(before);
          if (call >= plan.warmup) cpu.push((used.user + used.system) / 1000);
        },
        plan,
        CALL_TIMEOUT_MS,
        benchmark,
      );
      const cpuSummary = summarize(cpu);
      recordSamples(record, benchmark, engine.name, samples, {
        target: MCP_SEARCH_TARGET,
        note: `CPU time of this process per call: p50 ${formatMs(cpuSummary.p50)}, p95 ${formatMs(cpuSummary.p95)}.`,
      });
    });
  } finally {
    await (client as Client | null)?.close();
    serveDb(undefined);
  }
};

export function mcpNotes(plan: RunPlan): string[] {
  return [
    `MCP search_bullets (target p95 ≤ ${formatMs(MCP_SEARCH_TARGET.maxMs)}): the MCP SDK's Client calls the tool over Streamable HTTP, its fetch ` +
      `handing each request to the /api/mcp route handler in this process (no socket): the API-key wrapper (no key, the local operator), ` +
      `a stateless McpServer and transport per request, the zod input check, the similarity index query and the JSON-RPC answer. ` +
      `${QUERIES} queries of 5–9 consecutive words of seeded random bullets, k = ${K}, taken in turn; ` +
      `${plan.warmup} warm-up + ${plan.runs} timed calls. The first call, which builds the index of the playbook's active bullets, is timed once on its own. ` +
      `The row's note gives this process's CPU time per call (process.cpuUsage: the client, the route, the index and PGlite, not a PostgreSQL server's work), ` +
      `which on a shared machine says more than wall time about a call's own cost.`,
  ];
}
