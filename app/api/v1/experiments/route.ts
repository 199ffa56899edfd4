// Experiments for scripts and CI: POST /api/v1/experiments creates one (201; an existing key is a 409).
import { apiRoute } from "@/server/apikeys/route";
import { createExperimentInput } from "@/server/experiments/schemas";
import { createExperiment } from "@/server/experiments/service";
import { readJsonBody } from "@/server/http/body";

export const dynamic = "force-dynamic";

const MAX_BODY_BYTES = 256 * 1024;

export const POST = apiRoute({ scope: "experiments:write" }, async (request, { db, actor, audit, allowPlaybooks }) => {
  const input = createExperimentInput.parse(await readJsonBody(request, { maxBytes: MAX_BODY_BYTES }));
  const definition = await createExperiment(db, { actor, audit }, input, { allowPlaybooks });
  return Response.json(definition, {
    status: 201,
    headers: { location: `/api/v1/experiments/${encodeURIComponent(definition.key)}`, "cache-control": "no-store" },
  });
});
