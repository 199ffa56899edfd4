// Thin procedures of the metrics: validate with zod, call the service.
import { createTRPCRouter, viewerProcedure } from "@/server/trpc/init";
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
  playbook: viewerProcedure
    .input(playbookMetricsInput)
    .output(metricsResultSchema)
    .query(({ ctx, input: { playbookId, ...query } }) => service.playbookMetrics(ctx.db, { playbookId }, query)),

  /** The studio overview: one row per playbook. */
  overview: viewerProcedure
    .input(overviewInput)
    .output(overviewResultSchema)
    .query(({ ctx, input }) => service.studioOverview(ctx.db, input)),

  /** One version's figures with its bullet score distribution. */
  versionFigures: viewerProcedure
    .input(versionFiguresInput)
    .output(versionFiguresResultSchema)
    .query(({ ctx, input }) => service.versionFigures(ctx.db, input)),
});
