// Thin procedures: validate with zod, call the domain function.
import { createTRPCRouter, adminProcedure, curatorProcedure, viewerProcedure } from "@/server/trpc/init";
import {
  bulletRefInput,
  createPlaybookInput,
  createPlaybookResultSchema,
  exportPlaybookInput,
  importPlaybookInput,
  importResultSchema,
  listBulletsInput,
  playbookIdSchema,
  updateSettingsInput,
  updateSettingsResultSchema,
} from "./schemas";
import { getBullet, getPlaybook, listBullets, listPlaybooks } from "./browse";
import { exportPlaybook } from "./export";
import { importPlaybook } from "./import";
import { createPlaybook, updateSettings } from "./manage";

export const playbookRouter = createTRPCRouter({
  list: viewerProcedure.query(({ ctx }) => listPlaybooks(ctx.db)),

  get: viewerProcedure.input(playbookIdSchema).query(({ ctx, input }) => getPlaybook(ctx.db, input.playbookId)),

  create: curatorProcedure
    .input(createPlaybookInput)
    .output(createPlaybookResultSchema)
    .mutation(({ ctx, input }) => createPlaybook(ctx.db, ctx, input)),

  bullets: viewerProcedure.input(listBulletsInput).query(({ ctx, input }) => listBullets(ctx.db, input)),

  bullet: viewerProcedure.input(bulletRefInput).query(({ ctx, input }) => getBullet(ctx.db, input.playbookId, input.externalId)),

  import: curatorProcedure
    .input(importPlaybookInput)
    .output(importResultSchema)
    .mutation(({ ctx, input }) => importPlaybook(ctx.db, ctx, input)),

  export: viewerProcedure.input(exportPlaybookInput).query(({ ctx, input }) => exportPlaybook(ctx.db, input)),

  /** Curation settings: similarity threshold, auto-apply, limits, pruning policy. */
  updateSettings: adminProcedure
    .input(updateSettingsInput)
    .output(updateSettingsResultSchema)
    .mutation(({ ctx, input }) => updateSettings(ctx.db, ctx, input)),
});
