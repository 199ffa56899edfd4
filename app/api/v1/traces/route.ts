// Agents report runs: POST /api/v1/traces with one trace or {"traces": [...]} (see /api/v1/openapi.json).
import { apiRoute } from "@/server/apikeys/route";
import { readJsonBody } from "@/server/http/body";
import { MAX_TRACE_BODY_BYTES, parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "traces:write" }, async (request, { db, allowPlaybooks }) => {
  // NUL characters in an agent's output are stored as U+FFFD (traces/repository.ts), not refused.
  const body = await readJsonBody(request, { maxBytes: MAX_TRACE_BODY_BYTES, hint: "Send the traces in smaller batches.", allowNul: true });
  const traces = parseTraceBody(body);
  await allowPlaybooks(traces.map((trace) => trace.playbook));
  const result = await ingestTraces(db, traces, { source: "api" });
  return Response.json(result, { status: result.created > 0 ? 201 : 200 });
});
