// Thin procedures: validate with zod, call the service.
import { z } from "zod";
import { updateSettings } from "@/server/playbooks/manage";
import { createTRPCRouter, adminProcedure, curatorProcedure, viewerProcedure } from "@/server/trpc/init";
import { readStudioBudget, writeStudioBudget } from "./budget";
import {
  curateNowInput,
  enqueueResultSchema,
  listRunsInput,
  pauseRunsInput,
  reflectNowInput,
  runIdInput,
  studioBudgetSchema,
} from "./schemas";
import * as service from "./service";

export const runRouter = createTRPCRouter({
  list: viewerProcedure.input(listRunsInput).query(({ ctx, input }) => service.listRuns(ctx.db, input)),

  get: viewerProcedure.input(runIdInput).query(({ ctx, input }) => service.getRun(ctx.db, input.runId)),

  /** Provider, circuit breaker, queue, budgets and triggers of one playbook. */
  status: viewerProcedure.input(z.object({ playbookId: z.uuid() })).query(({ ctx, input }) => service.runsStatus(ctx.db, input.playbookId)),

  reflectNow: curatorProcedure
    .input(reflectNowInput)
    .output(enqueueResultSchema)
    .mutation(({ ctx, input }) => service.reflectNow(ctx.db, ctx, input)),

  curateNow: curatorProcedure
    .input(curateNowInput)
    .output(enqueueResultSchema)
    .mutation(({ ctx, input }) => service.curateNow(ctx.db, ctx, input.playbookId)),

  retry: curatorProcedure
    .input(runIdInput)
    .output(enqueueResultSchema)
    .mutation(({ ctx, input }) => service.retryRun(ctx.db, ctx, input.runId)),

  /** Pausing is a playbook setting (runsPaused), so it is versioned like every other. */
  setPaused: curatorProcedure
    .input(pauseRunsInput)
    .output(z.object({ paused: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const result = await updateSettings(ctx.db, ctx, { playbookId: input.playbookId, settings: { runsPaused: input.paused } });
      return { paused: result.settings.runsPaused };
    }),

  studioBudget: viewerProcedure.query(({ ctx }) => readStudioBudget(ctx.db)),

  setStudioBudget: adminProcedure
    .input(studioBudgetSchema)
    .output(studioBudgetSchema)
    .mutation(({ ctx, input }) => writeStudioBudget(ctx.db, ctx, input)),
});
