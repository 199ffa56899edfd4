// Thin procedures of the audit log: admins only, read only (nothing edits an entry).
import { adminProcedure, createTRPCRouter } from "@/server/trpc/init";
import { listAuditInput } from "./schemas";
import * as service from "./service";

export const auditRouter = createTRPCRouter({
  list: adminProcedure
    .meta({ playbook: "playbookId!" })
    .input(listAuditInput)
    .query(({ ctx, input }) => service.listAudit(ctx.db, input)),
});
