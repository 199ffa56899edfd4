// Thin procedures: validate with zod, call the service.
import { playbookScopeOf } from "@/server/access/restriction";
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
  list: viewerProcedure
    .meta({ playbook: "playbookId?" })
    .input(listRunsInput)
    .query(({ ctx, input }) => service.listRuns(ctx.db, input, playbookScopeOf(ctx.principal))),

  get: viewerProcedure
    .meta({ playbook: "runId" })
    .input(runIdInput)
    .query(({ ctx, input }) => service.getRun(ctx.db, input.runId)),

  /** Provider, circuit breaker, queue, budgets and triggers of one playbook. */
  status: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(z.object({ playbookId: z.uuid() }))
    .query(({ ctx, input }) => service.runsStatus(ctx.db, input.playbookId)),

  reflectNow: curatorProcedure
    .meta({ playbook: ["playbookId", "traceIds"] })
    .input(reflectNowInput)
    .output(enqueueResultSchema)
    .mutation(({ ctx, input }) => service.reflectNow(ctx.db, ctx, input)),

  curateNow: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(curateNowInput)
    .output(enqueueResultSchema)
    .mutation(({ ctx, input }) => service.curateNow(ctx.db, ctx, input.playbookId)),

  retry: curatorProcedure
    .meta({ playbook: "runId" })
    .input(runIdInput)
    .output(enqueueResultSchema)
    .mutation(({ ctx, input }) => service.retryRun(ctx.db, ctx, input.runId)),

  /** Pausing is a playbook setting (runsPaused), so it is versioned like every other. */
  setPaused: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(pauseRunsInput)
    .output(z.object({ paused: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      const result = await updateSettings(ctx.db, ctx, { playbookId: input.playbookId, settings: { runsPaused: input.paused } });
      return { paused: result.settings.runsPaused };
    }),

  studioBudget: viewerProcedure.meta({ playbook: "studio" }).query(({ ctx }) => readStudioBudget(ctx.db)),

  setStudioBudget: adminProcedure
    .meta({ playbook: "studio" })
    .input(studioBudgetSchema)
    .output(studioBudgetSchema)
    .mutation(({ ctx, input }) => writeStudioBudget(ctx.db, ctx, input)),
});
