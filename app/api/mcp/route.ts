// Coding agents connect here over MCP (Streamable HTTP): POST /api/mcp[?playbook=<name>] with
// JSON-RPC, an API key with the "mcp" scope where keys are required (401 before any tool runs).
// ?playbook= names the playbook the tools use when a call leaves it out.
import { apiRoute } from "@/server/apikeys/route";
import { callerOf, handleMcpPost, methodNotAllowed } from "@/server/mcp/http";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "mcp" }, (request, ctx) => handleMcpPost(request, callerOf(request, ctx)));

export const GET = apiRoute({ scope: "mcp" }, async () => methodNotAllowed());

export const DELETE = apiRoute({ scope: "mcp" }, async () => methodNotAllowed());
