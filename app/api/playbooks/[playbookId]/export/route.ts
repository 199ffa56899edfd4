// A playbook as a downloadable file: GET /api/playbooks/{id}/export?format=ace|ace-plain|kayba|json
import { getDb } from "@/server/db/client";
import { errorResponse } from "@/server/http/responses";
import { exportPlaybookInput } from "@/server/playbooks/schemas";
import { exportPlaybook } from "@/server/playbooks/export";

export const dynamic = "force-dynamic";

export async function GET(request: Request, context: { params: Promise<{ playbookId: string }> }) {
  try {
    const { playbookId } = await context.params;
    const params = new URL(request.url).searchParams;
    const input = exportPlaybookInput.parse({
      playbookId,
      format: params.get("format") || undefined,
      includeArchived: params.get("includeArchived") === "true",
      kaybaFlavour: params.get("kayba") || undefined,
    });
    const file = await exportPlaybook(await getDb(), input);
    return new Response(file.content, {
      headers: {
        "content-type": `${file.mimeType}; charset=utf-8`,
        "content-disposition": `attachment; filename="${file.fileName}"`,
        "cache-control": "no-store",
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}

