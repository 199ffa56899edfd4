// Thin procedures of the playbook history: validate with zod, call the service.
import { createTRPCRouter, curatorProcedure, viewerProcedure } from "@/server/trpc/init";
import { atVersionInput, diffVersionsInput, lineageInput, rollbackInput, rollbackResultSchema, versionsInput } from "./schemas";
import * as service from "./service";

export const historyRouter = createTRPCRouter({
  versions: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(versionsInput)
    .query(({ ctx, input }) => service.listVersions(ctx.db, input)),

  /** The playbook as it was at a version. */
  at: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(atVersionInput)
    .query(({ ctx, input }) => service.playbookAt(ctx.db, input)),

  diff: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(diffVersionsInput)
    .query(({ ctx, input }) => service.diffVersions(ctx.db, input)),

  /** Back to a version, as a new version that keeps the ones in between. */
  rollback: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(rollbackInput)
    .output(rollbackResultSchema)
    .mutation(({ ctx, input }) => service.rollback(ctx.db, ctx, input)),

  lineage: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(lineageInput)
    .query(({ ctx, input }) => service.lineage(ctx.db, input)),
});
