// Thin procedures: validate with zod, call the domain function.
import { playbookScopeOf, visibleTo } from "@/server/access/restriction";
import { authorize } from "@/server/auth/principal";
import { warmInBackground } from "@/server/deltas/engine-state";
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
  list: viewerProcedure
    .meta({ playbook: "listed" })
    .query(({ ctx }) => listPlaybooks(ctx.db).then((rows) => visibleTo(playbookScopeOf(ctx.principal), rows, (row) => row.id))),

  get: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(playbookIdSchema)
    .query(async ({ ctx, input }) => {
      const playbook = await getPlaybook(ctx.db, input.playbookId);
      // Whoever may edit it opened it: its near-duplicate index is built meanwhile, so the first edit
      // does not wait for it (server/deltas/engine-state.ts).
      if (authorize(ctx.principal, "curator", input.playbookId).ok) warmInBackground(ctx.db, input.playbookId);
      return playbook;
    }),

  create: curatorProcedure
    .meta({ playbook: "studio" })
    .input(createPlaybookInput)
    .output(createPlaybookResultSchema)
    .mutation(({ ctx, input }) => createPlaybook(ctx.db, ctx, input)),

  bullets: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(listBulletsInput)
    .query(({ ctx, input }) => listBullets(ctx.db, input)),

  bullet: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(bulletRefInput)
    .query(({ ctx, input }) => getBullet(ctx.db, input.playbookId, input.externalId)),

  import: curatorProcedure
    .meta({ playbook: "importTarget" })
    .input(importPlaybookInput)
    .output(importResultSchema)
    .mutation(({ ctx, input }) => importPlaybook(ctx.db, ctx, input)),

  export: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(exportPlaybookInput)
    .query(({ ctx, input }) => exportPlaybook(ctx.db, input)),

  /** Curation settings: similarity threshold, auto-apply, limits, pruning policy. */
  updateSettings: adminProcedure
    .meta({ playbook: "playbookId" })
    .input(updateSettingsInput)
    .output(updateSettingsResultSchema)
    .mutation(({ ctx, input }) => updateSettings(ctx.db, ctx, input)),
});
