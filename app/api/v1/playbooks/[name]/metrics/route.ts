// A playbook's metrics over time, the data behind its Evolution charts:
// GET /api/v1/playbooks/{name}/metrics?from=2026-11-01&to=2026-11-15&bucket=day&variant=A
import { apiRoute } from "@/server/apikeys/route";
import { parseMetricsQuery } from "@/server/metrics/schemas";
import { playbookMetrics } from "@/server/metrics/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ name: string }>({ scope: "metrics:read" }, async (request, { params, db, allowPlaybooks }) => {
  const { name } = params;
  await allowPlaybooks([name]);
  const query = parseMetricsQuery(new URL(request.url).searchParams);
  const result = await playbookMetrics(db, { name }, query);
  return Response.json(result, { headers: { "cache-control": "no-store" } });
});
