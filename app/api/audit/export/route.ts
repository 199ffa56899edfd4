// The audit log as CSV, with the /audit page's filters: GET /api/audit/export?who=&action=&playbook=&from=&to=
import { parseAuditSearch } from "@/server/audit/schemas";
import { auditCsv } from "@/server/audit/service";
import { sessionRoute } from "@/server/auth/routes";

export const dynamic = "force-dynamic";

export const GET = sessionRoute({ role: "admin" }, async (request, { db, allowPlaybooks }) => {
  const filters = parseAuditSearch(new URL(request.url).searchParams);
  // The whole log is studio-wide; one playbook's entries are that playbook's.
  await allowPlaybooks(filters.playbookId ? { ids: [filters.playbookId] } : "studio");
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
  return new Response(auditCsv(db, filters), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="ace-studio-audit-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
});
