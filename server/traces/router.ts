// Thin procedures of the trace domain: validate with zod, call the service.
import { createTRPCRouter, publicProcedure } from "@/server/trpc/init";
import { ingestResultSchema, listTracesInput, traceBatchSchema, traceIdInput } from "./schemas";
import * as service from "./service";

export const traceRouter = createTRPCRouter({
  /** The same ingest as POST /api/v1/traces, for the studio (e.g. a file of traces uploaded). */
  ingest: publicProcedure
    .input(traceBatchSchema)
    .output(ingestResultSchema)
    .mutation(({ ctx, input }) => service.ingestTraces(ctx.db, input.traces, { source: "studio" })),

  list: publicProcedure.input(listTracesInput).query(({ ctx, input }) => service.listTraces(ctx.db, input)),

  get: publicProcedure.input(traceIdInput).query(({ ctx, input }) => service.getTrace(ctx.db, input.traceId)),
});
