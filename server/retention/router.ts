// Thin procedures of retention: validate with zod, call the service. Anyone signed in may read what
// the next run will remove; only an admin changes the studio default or runs it now.
import { readStudioRetention, writeStudioRetention } from "@/server/playbooks/manage";
import { adminProcedure, createTRPCRouter, viewerProcedure } from "@/server/trpc/init";
import { retentionPreviewSchema, retentionRunSchema, retentionSettingsSchema, retentionStatusSchema } from "./schemas";
import * as service from "./service";

export const retentionRouter = createTRPCRouter({
  /** The studio default, the last run and what it removed, the next daily run. */
  status: viewerProcedure
    .meta({ playbook: "studio" })
    .output(retentionStatusSchema)
    .query(({ ctx }) => service.retentionStatus(ctx.db)),

  /** Dry run: what the next run will remove, per playbook and kind. */
  preview: viewerProcedure
    .meta({ playbook: "studio" })
    .output(retentionPreviewSchema)
    .query(({ ctx }) => service.previewRetention(ctx.db)),

  studioDefault: viewerProcedure
    .meta({ playbook: "studio" })
    .output(retentionSettingsSchema)
    .query(({ ctx }) => readStudioRetention(ctx.db)),

  setStudioDefault: adminProcedure
    .meta({ playbook: "studio" })
    .input(retentionSettingsSchema)
    .output(retentionSettingsSchema)
    .mutation(({ ctx, input }) => writeStudioRetention(ctx.db, ctx, input)),

  /** Runs retention now (as the daily job would), and returns what it removed. */
  runNow: adminProcedure
    .meta({ playbook: "studio" })
    .output(retentionRunSchema)
    .mutation(({ ctx }) => service.runRetention(ctx.db, ctx, "manual")),
});
