// Thin procedures of the metrics: validate with zod, call the service.
import { playbookScopeOf, visibleTo } from "@/server/access/restriction";
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
    .meta({ playbook: "playbookId" })
    .input(playbookMetricsInput)
    .output(metricsResultSchema)
    .query(({ ctx, input: { playbookId, ...query } }) => service.playbookMetrics(ctx.db, { playbookId }, query)),

  /** The studio overview: one row per playbook. */
  overview: viewerProcedure
    .meta({ playbook: "listed" })
    .input(overviewInput)
    .output(overviewResultSchema)
    .query(async ({ ctx, input }) => {
      const overview = await service.studioOverview(ctx.db, input);
      return { ...overview, playbooks: visibleTo(playbookScopeOf(ctx.principal), overview.playbooks, (row) => row.playbookId) };
    }),

  /** One version's figures with its bullet score distribution. */
  versionFigures: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(versionFiguresInput)
    .output(versionFiguresResultSchema)
    .query(({ ctx, input }) => service.versionFigures(ctx.db, input)),
});
