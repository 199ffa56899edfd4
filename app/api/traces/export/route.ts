// The Traces page's "Delete on request" download: a selection's traces as JSON Lines, for an admin
// signed in to the studio. GET /api/traces/export?playbook=&unitId=&externalId=&from=&to=
import { sessionRoute } from "@/server/auth/routes";
import { exportSelectionLines, selectionByName } from "@/server/traces/erasure";
import { parseTraceSelectionQuery } from "@/server/traces/schemas";

export const dynamic = "force-dynamic";

export const GET = sessionRoute({ role: "admin" }, async (request, { db, allowPlaybooks }) => {
  const query = parseTraceSelectionQuery(new URL(request.url).searchParams);
  await allowPlaybooks({ names: [query.playbook] });
  const selection = await selectionByName(db, query);
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
  return new Response(await exportSelectionLines(db, selection), {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="ace-studio-traces-${stamp}.jsonl"`,
      "cache-control": "no-store",
    },
  });
});
