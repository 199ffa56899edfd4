// A playbook as a downloadable file: GET /api/playbooks/{id}/export?format=ace|ace-plain|kayba|json
import { sessionRoute } from "@/server/auth/routes";
import { exportPlaybookInput } from "@/server/playbooks/schemas";
import { exportPlaybook } from "@/server/playbooks/export";

export const dynamic = "force-dynamic";

export const GET = sessionRoute<{ playbookId: string }>({ role: "viewer" }, async (request, { params, db }) => {
  const search = new URL(request.url).searchParams;
  const input = exportPlaybookInput.parse({
    playbookId: params.playbookId,
    format: search.get("format") || undefined,
    includeArchived: search.get("includeArchived") === "true",
    kaybaFlavour: search.get("kayba") || undefined,
  });
  const file = await exportPlaybook(db, input);
  return new Response(file.content, {
    headers: {
      "content-type": `${file.mimeType}; charset=utf-8`,
      "content-disposition": `attachment; filename="${file.fileName}"`,
      "cache-control": "no-store",
    },
  });
});
