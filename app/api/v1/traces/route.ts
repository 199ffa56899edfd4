// Agents report runs: POST /api/v1/traces with one trace or {"traces": [...]} (see /api/v1/openapi.json).
import { getDb } from "@/server/db/client";
import { readJsonBody } from "@/server/http/body";
import { errorResponse } from "@/server/http/responses";
import { MAX_TRACE_BODY_BYTES, parseTraceBody } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";

export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  try {
    const body = await readJsonBody(request, { maxBytes: MAX_TRACE_BODY_BYTES, hint: "Send the traces in smaller batches." });
    const result = await ingestTraces(await getDb(), parseTraceBody(body), { source: "api" });
    return Response.json(result, { status: result.created > 0 ? 201 : 200 });
  } catch (error) {
    return errorResponse(error);
  }
}
