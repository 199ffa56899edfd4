// An external ACE loop proposes its evolved playbook for review:
// POST /api/v1/playbooks/{name}/proposals with {"content": "<file text>", "format": "auto", "baseVersion": 7}.
import { apiRoute } from "@/server/apikeys/route";
import { readJsonBody } from "@/server/http/body";
import { proposeToNamedPlaybook } from "@/server/playbooks/import";
import { MAX_PROPOSAL_BODY_BYTES, proposalRequestSchema } from "@/server/playbooks/schemas";

export const dynamic = "force-dynamic";

export const POST = apiRoute<{ name: string }>(
  { scope: "proposals:write" },
  async (request, { params, db, actor, audit, allowPlaybooks }) => {
    const { name } = params;
    await allowPlaybooks([name]);
    const body = await readJsonBody(request, { maxBytes: MAX_PROPOSAL_BODY_BYTES });
    const input = proposalRequestSchema.parse(body);
    const result = await proposeToNamedPlaybook(db, { actor, audit }, name, input);
    return Response.json(result, { status: result.deltaId === null ? 200 : 201, headers: { "cache-control": "no-store" } });
  },
);
