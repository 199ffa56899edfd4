// A playbook's metrics over time, the data behind its Evolution charts:
// GET /api/v1/playbooks/{name}/metrics?from=2026-11-01&to=2026-11-15&bucket=day&variant=A
import { getDb } from "@/server/db/client";
import { errorResponse } from "@/server/http/responses";
import { parseMetricsQuery } from "@/server/metrics/schemas";
import { playbookMetrics } from "@/server/metrics/service";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ name: string }> }) {
  try {
    const { name } = await context.params;
    const query = parseMetricsQuery(new URL(request.url).searchParams);
    const result = await playbookMetrics(await getDb(), { name }, query);
    return Response.json(result, { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return errorResponse(error);
  }
}
