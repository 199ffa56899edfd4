// Thin procedures of the experiments: validate with zod, call the service.
import { playbookScopeOf } from "@/server/access/restriction";
import { createTRPCRouter, curatorProcedure, viewerProcedure } from "@/server/trpc/init";
import {
  createExperimentInput,
  decideInput,
  decisionResultSchema,
  experimentDefinitionSchema,
  experimentKeyInput,
  listExperimentsInput,
  resultsInput,
  sampleSizeInput,
  updateExperimentInput,
} from "./schemas";
import * as service from "./service";

export const experimentRouter = createTRPCRouter({
  /** Every experiment (or a playbook's, or by status), newest change first, with leader, significance, SRM flag and progress. */
  list: viewerProcedure
    .meta({ playbook: "playbookId?" })
    .input(listExperimentsInput)
    .query(({ ctx, input }) => service.listExperiments(ctx.db, input, playbookScopeOf(ctx.principal))),

  get: viewerProcedure
    .meta({ playbook: "experimentKey" })
    .input(experimentKeyInput)
    .query(({ ctx, input }) => service.getExperiment(ctx.db, input.key)),

  results: viewerProcedure
    .meta({ playbook: "experimentKey" })
    .input(resultsInput)
    .query(({ ctx, input }) => service.experimentResults(ctx.db, input.key, input.phase)),

  /** Units per variant for a baseline rate and an MDE (the calculator of /experiments/new). */
  sampleSize: viewerProcedure
    .meta({ playbook: "none" })
    .input(sampleSizeInput)
    .query(({ input }) => service.sampleSize(input)),

  create: curatorProcedure
    .meta({ playbook: "experimentPlaybooks" })
    .input(createExperimentInput)
    .output(experimentDefinitionSchema)
    .mutation(({ ctx, input }) => service.createExperiment(ctx.db, ctx, input)),

  /** Only the fields sent change; `status` starts or stops; re-weighting a running experiment needs confirmNewPhase. */
  update: curatorProcedure
    .meta({ playbook: "experimentKey" })
    .input(updateExperimentInput)
    .output(experimentDefinitionSchema)
    .mutation(({ ctx, input: { key, ...patch } }) => service.updateExperiment(ctx.db, ctx, key, patch)),

  /** Ship a variant (rolling back to a pinned older version when asked) or stop. */
  decide: curatorProcedure
    .meta({ playbook: "experimentKey" })
    .input(decideInput)
    .output(decisionResultSchema)
    .mutation(({ ctx, input }) => service.decide(ctx.db, ctx, input)),

  /** Archive a stopped experiment: retention may then remove its traces and exposures; its results stay. */
  archive: curatorProcedure
    .meta({ playbook: "experimentKey" })
    .input(experimentKeyInput)
    .output(experimentDefinitionSchema)
    .mutation(({ ctx, input }) => service.archiveExperiment(ctx.db, ctx, input.key)),
});
