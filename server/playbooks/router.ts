// Thin procedures: validate with zod, call the service.
import { createTRPCRouter, publicProcedure } from "@/server/trpc/init";
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
import * as service from "./service";

export const playbookRouter = createTRPCRouter({
  list: publicProcedure.query(({ ctx }) => service.listPlaybooks(ctx.db)),

  get: publicProcedure.input(playbookIdSchema).query(({ ctx, input }) => service.getPlaybook(ctx.db, input.playbookId)),

  create: publicProcedure
    .input(createPlaybookInput)
    .output(createPlaybookResultSchema)
    .mutation(({ ctx, input }) => service.createPlaybook(ctx.db, ctx.actor, input)),

  bullets: publicProcedure.input(listBulletsInput).query(({ ctx, input }) => service.listBullets(ctx.db, input)),

  bullet: publicProcedure
    .input(bulletRefInput)
    .query(({ ctx, input }) => service.getBullet(ctx.db, input.playbookId, input.externalId)),

  import: publicProcedure
    .input(importPlaybookInput)
    .output(importResultSchema)
    .mutation(({ ctx, input }) => service.importPlaybook(ctx.db, ctx.actor, input)),

  export: publicProcedure.input(exportPlaybookInput).query(({ ctx, input }) => service.exportPlaybook(ctx.db, input)),

  /** Curation settings: similarity threshold, auto-apply, limits, pruning policy. */
  updateSettings: publicProcedure
    .input(updateSettingsInput)
    .output(updateSettingsResultSchema)
    .mutation(({ ctx, input }) => service.updateSettings(ctx.db, ctx.actor, input)),
});
