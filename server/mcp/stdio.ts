// MCP over stdio for `npm run -s ace -- mcp [--playbook <name>]`, the entry a coding agent starts
// (claude mcp add, .cursor/mcp.json). Nothing but JSON-RPC goes to stdout: everything else is
// written to stderr. On the database itself the process serves the tools and runs the reflector
// and curator like the web server; when a running ACE Studio holds the embedded database (or
// --server names one) it relays every message to that server's /api/mcp instead.
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { AuditActor } from "@/server/audit/schemas";
import type { Db } from "@/server/db/client";
import { findPlaybookByName } from "@/server/playbooks/repository";
import { startRunWorker } from "@/server/runs/worker";
import { createAceMcpServer } from "./server";

/** Keeps stdout for JSON-RPC: a log line from any module would break the client's reading. */
export function keepStdoutForProtocol(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

/** Resolves when the client closes stdin (or the transport closes). */
function closed(transport: StdioServerTransport): Promise<void> {
  return new Promise((resolve) => {
    const previous = transport.onclose;
    transport.onclose = () => {
      previous?.();
      resolve();
    };
    process.stdin.once("end", () => void transport.close());
  });
}

/** Serves the tools on this process's own database, as the local operator the CLI acts as. */
export async function serveOnDatabase(db: Db, { actor, playbook }: { actor: string; playbook: string | null }): Promise<void> {
  if (playbook && !(await findPlaybookByName(db, playbook))) {
    console.error(`note: there is no playbook named "${playbook}" yet; the tools will say so until it exists.`);
  }
  // Traces recorded here are reflected here: no other process may open the embedded database.
  const worker = await startRunWorker(db);
  const auditActor: AuditActor = { kind: "local", id: null, name: actor };
  const server = createAceMcpServer({
    db,
    who: { actor, audit: { actor: auditActor, requestId: null, ip: null } },
    allowPlaybooks: async () => undefined,
    visiblePlaybooks: "all",
    defaultPlaybook: playbook,
  });
  const transport = new StdioServerTransport();
  const done = closed(transport);
  await server.connect(transport);
  console.error(`ACE Studio MCP server on stdio${playbook ? ` for the playbook "${playbook}"` : ""}.`);
  await done;
  await server.close();
  await worker?.stop({ timeoutMs: 10_000 });
}

function relayError(error: unknown, url: URL): string {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof StreamableHTTPError && (error.code === 401 || error.code === 403)) {
    const what =
      error.code === 401 ? "set ACE_API_KEY to an API key with the mcp scope" : "use an API key with the mcp scope and this playbook";
    return `The ACE Studio server at ${url.origin} refused the request (${error.code}): ${what}. ${text}`;
  }
  if (/fetch failed|ECONNREFUSED/.test(text)) return `Could not reach the ACE Studio server at ${url.origin}. Is it running? ${text}`;
  return `The ACE Studio server at ${url.origin} answered with an error: ${text}`;
}

/**
 * Relays JSON-RPC between stdio and a running server's /api/mcp (Streamable HTTP). The server
 * does the work, as the CLI's other commands have it do when it holds the embedded database.
 */
export async function relayToServer(
  serverUrl: string,
  { playbook, headers }: { playbook: string | null; headers: Record<string, string> },
): Promise<void> {
  const url = new URL("/api/mcp", serverUrl);
  if (playbook) url.searchParams.set("playbook", playbook);
  const remote = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const local = new StdioServerTransport();
  const done = closed(local);

  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((error: unknown) => {
      const reason = relayError(error, url);
      console.error(`[mcp] ${reason}`);
      // A request must get an answer, or the client waits for ever.
      if (isJSONRPCRequest(message)) void local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32000, message: reason } });
    });
  };
  remote.onmessage = (message: JSONRPCMessage) => {
    // The initialize result names the protocol version every later request must carry in its header.
    if (isJSONRPCResultResponse(message) && typeof message.result.protocolVersion === "string") {
      remote.setProtocolVersion(message.result.protocolVersion);
    }
    void local.send(message);
  };
  remote.onerror = (error) => console.error(`[mcp] ${relayError(error, url)}`);
  local.onerror = (error) => console.error(`[mcp] stdio: ${error.message}`);

  await remote.start();
  await local.start();
  console.error(`ACE Studio MCP on stdio, through the server at ${url.origin}${playbook ? ` for the playbook "${playbook}"` : ""}.`);
  await done;
  await remote.close();
}
