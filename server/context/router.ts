// Thin procedures of the compiled context: validate with zod, call the service.
import { createTRPCRouter, viewerProcedure } from "@/server/trpc/init";
import { contextResultSchema, playbookContextInput } from "./schemas";
import * as service from "./service";

export const contextRouter = createTRPCRouter({
  /** What GET /api/v1/playbooks/{name}/context returns, for a preview in the studio. */
  get: viewerProcedure
    .meta({ playbook: "playbookId" })
    .input(playbookContextInput)
    .output(contextResultSchema)
    .query(({ ctx, input }) => service.previewContext(ctx.db, input)),
});
