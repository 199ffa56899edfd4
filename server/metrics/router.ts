// Thin procedures of the metrics: validate with zod, call the service.
import { createTRPCRouter, publicProcedure } from "@/server/trpc/init";
import {
  metricsResultSchema,
  overviewInput,
  overviewResultSchema,
  playbookMetricsInput,
  versionFiguresInput,
  versionFiguresResultSchema,
} from "./schemas";
import * as service from "./service";

export const metricsRouter = createTRPCRouter({
  /** What GET /api/v1/playbooks/{name}/metrics returns, by playbook id: the Evolution tab's data. */
  playbook: publicProcedure
    .input(playbookMetricsInput)
    .output(metricsResultSchema)
    .query(({ ctx, input: { playbookId, ...query } }) => service.playbookMetrics(ctx.db, { playbookId }, query)),

  /** The studio overview: one row per playbook. */
  overview: publicProcedure
    .input(overviewInput)
    .output(overviewResultSchema)
    .query(({ ctx, input }) => service.studioOverview(ctx.db, input)),

  /** One version's figures with its bullet score distribution. */
  versionFigures: publicProcedure
    .input(versionFiguresInput)
    .output(versionFiguresResultSchema)
    .query(({ ctx, input }) => service.versionFigures(ctx.db, input)),
});
