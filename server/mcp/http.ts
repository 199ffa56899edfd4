// MCP over Streamable HTTP at /api/mcp, stateless: every POST gets its own server and transport
// (the SDK's Web-standard transport, Request in, Response out, plain JSON answers), so any server
// process can answer any request and nothing is kept between them. The caller is whoever the
// /api/v1 wrapper resolved: an API key with the "mcp" scope, or the local operator.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ApiContext } from "@/server/apikeys/route";
import { createAceMcpServer } from "./server";
import type { McpCaller } from "./service";

/** Stateless: no server-sent events stream to open (GET) and no session to end (DELETE). */
export function methodNotAllowed(): Response {
  return Response.json(
    {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Method not allowed: this MCP server is stateless; send JSON-RPC with POST." },
      id: null,
    },
    { status: 405, headers: { allow: "POST", "cache-control": "no-store" } },
  );
}

export function callerOf(request: Request, ctx: ApiContext<unknown>): McpCaller {
  const { principal } = ctx;
  const defaultPlaybook = new URL(request.url).searchParams.get("playbook")?.trim() || null;
  return {
    db: ctx.db,
    who: { actor: ctx.actor, audit: ctx.audit },
    allowPlaybooks: ctx.allowPlaybooks,
    visiblePlaybooks: principal.kind === "apikey" && principal.playbookIds !== "all" ? new Set(principal.playbookIds) : "all",
    defaultPlaybook,
  };
}

export async function handleMcpPost(request: Request, caller: McpCaller): Promise<Response> {
  const server = createAceMcpServer(caller);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request);
    response.headers.set("cache-control", "no-store");
    return response;
  } finally {
    await server.close();
  }
}
