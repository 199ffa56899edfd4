// POST /api/v1/experiments/{key}/assign {"unitId": "…"}: the unit's variant (GrowthBook hashing,
// version 2), sticky per phase; the first call records the unit's exposure. The hot path of agents: the
// experiment's definition is reused for up to a second (DEFINITION_TTL_MS in server/experiments/definitions.ts says what that bounds).
import { apiRoute } from "@/server/apikeys/route";
import { assignInput, experimentKeySchema } from "@/server/experiments/schemas";
import { assignUnit } from "@/server/experiments/assignment";
import { readJsonBody } from "@/server/http/body";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ key: string }>({ scope: "experiments:assign" }, async (request, { params, db, allowPlaybooks }) => {
  const key = experimentKeySchema.parse(params.key);
  const { unitId } = assignInput.parse(await readJsonBody(request, { maxBytes: 16 * 1024 }));
  return Response.json(await assignUnit(db, key, unitId, { allowPlaybooks, reuseDefinition: true }), {
    headers: { "cache-control": "no-store" },
  });
});
