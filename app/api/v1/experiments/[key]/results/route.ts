// GET /api/v1/experiments/{key}/results[?phase=N]: the results table's numbers for one phase.
import { apiRoute } from "@/server/apikeys/route";
import { resultsInput } from "@/server/experiments/schemas";
import { experimentResults } from "@/server/experiments/service";

export const dynamic = "force-dynamic";

export const GET = apiRoute<{ key: string }>({ scope: "experiments:read" }, async (request, { params, db, allowPlaybooks }) => {
  const phase = new URL(request.url).searchParams.get("phase")?.trim();
  // Text that is not a whole number reaches the schema as text, which names the parameter.
  const input = resultsInput.parse({
    key: params.key,
    phase: phase === undefined || phase === "" ? undefined : /^\d+$/.test(phase) ? Number(phase) : phase,
  });
  return Response.json(await experimentResults(db, input.key, input.phase, { allowPlaybooks }), {
    headers: { "cache-control": "no-store" },
  });
});
