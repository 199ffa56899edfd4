// Agents report runs: POST /api/v1/traces with one trace or {"traces": [...]} (see /api/v1/openapi.json).
// A subject-access or deletion request: GET (JSON Lines) and DELETE /api/v1/traces?playbook=…&unitId=…
import { apiRoute } from "@/server/apikeys/route";
import { readJsonBody } from "@/server/http/body";
import { deleteSelection, exportSelectionLines, selectionByName } from "@/server/traces/erasure";
import { MAX_TRACE_BODY_BYTES, nulReplacedAt, parseTraceBody, parseTraceSelectionQuery } from "@/server/traces/schemas";
import { ingestTracesGrouped } from "@/server/traces/group-commit";

export const dynamic = "force-dynamic";

export const POST = apiRoute({ scope: "traces:write" }, async (request, { db, allowPlaybooks }) => {
  // NUL characters in an agent's text are stored as U+FFFD (traces/repository.ts); in a name they are refused.
  const body = await readJsonBody(request, {
    maxBytes: MAX_TRACE_BODY_BYTES,
    hint: "Send the traces in smaller batches.",
    allowNul: nulReplacedAt,
  });
  const traces = parseTraceBody(body);
  await allowPlaybooks(traces.map((trace) => trace.playbook));
  const result = await ingestTracesGrouped(db, traces, { source: "api" });
  return Response.json(result, { status: result.created > 0 ? 201 : 200 });
});

export const GET = apiRoute({ scope: "traces:read" }, async (request, { db, allowPlaybooks }) => {
  const query = parseTraceSelectionQuery(new URL(request.url).searchParams);
  await allowPlaybooks([query.playbook]);
  const selection = await selectionByName(db, query);
  return new Response(await exportSelectionLines(db, selection), {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
  });
});

export const DELETE = apiRoute({ scope: "traces:delete" }, async (request, { db, allowPlaybooks, actor, audit }) => {
  const query = parseTraceSelectionQuery(new URL(request.url).searchParams);
  await allowPlaybooks([query.playbook]);
  const selection = await selectionByName(db, query);
  return Response.json({ deleted: await deleteSelection(db, { actor, audit }, selection) });
});
