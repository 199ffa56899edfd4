// One experiment: GET its definition (with what a GrowthBook SDK needs to assign offline),
// PATCH to change it (`status` starts or stops it; re-weighting a running one needs confirmNewPhase).
import { apiRoute } from "@/server/apikeys/route";
import { experimentKeySchema, updateExperimentFields } from "@/server/experiments/schemas";
import { getExperiment, updateExperiment } from "@/server/experiments/service";
import { readJsonBody } from "@/server/http/body";

export const dynamic = "force-dynamic";

const MAX_BODY_BYTES = 256 * 1024;

export const GET = apiRoute<{ key: string }>({ scope: "experiments:read" }, async (_request, { params, db, allowPlaybooks }) => {
  const key = experimentKeySchema.parse(params.key);
  return Response.json(await getExperiment(db, key, { allowPlaybooks }), { headers: { "cache-control": "no-store" } });
});

export const PATCH = apiRoute<{ key: string }>(
  { scope: "experiments:write" },
  async (request, { params, db, actor, audit, allowPlaybooks }) => {
    const key = experimentKeySchema.parse(params.key);
    const patch = updateExperimentFields.parse(await readJsonBody(request, { maxBytes: MAX_BODY_BYTES }));
    return Response.json(await updateExperiment(db, { actor, audit }, key, patch, { allowPlaybooks }), {
      headers: { "cache-control": "no-store" },
    });
  },
);
