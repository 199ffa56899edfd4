// A playbook as a downloadable file: GET /api/playbooks/{id}/export?format=ace|ace-plain|kayba|json,
// or for coding agents ?format=claude-md|agents-md|cursor-rules[&budget=<tokens>] (export only).
import { sessionRoute } from "@/server/auth/routes";
import { exportPlaybookInput } from "@/server/playbooks/schemas";
import { exportPlaybook } from "@/server/playbooks/export";

export const dynamic = "force-dynamic";

/** A whole number goes through as a number; anything else as the text it was, for the schema to name. */
function budgetParam(value: string | null): number | string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  return /^\d+$/.test(text) ? Number(text) : text;
}

export const GET = sessionRoute<{ playbookId: string }>({ role: "viewer" }, async (request, { params, db, allowPlaybooks }) => {
  const search = new URL(request.url).searchParams;
  const input = exportPlaybookInput.parse({
    playbookId: params.playbookId,
    format: search.get("format") || undefined,
    includeArchived: search.get("includeArchived") === "true",
    kaybaFlavour: search.get("kayba") || undefined,
    budget: budgetParam(search.get("budget")),
  });
  await allowPlaybooks({ ids: [input.playbookId] });
  const file = await exportPlaybook(db, input);
  return new Response(file.content, {
    headers: {
      "content-type": `${file.mimeType}; charset=utf-8`,
      "content-disposition": `attachment; filename="${file.fileName}"`,
      "cache-control": "no-store",
    },
  });
});
