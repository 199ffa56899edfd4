// Thin procedures of the trace domain: validate with zod, call the service.
import { playbookScopeOf } from "@/server/access/restriction";
import { redactionSettingsSchema } from "@/server/ace/redaction/settings";
import { adminProcedure, createTRPCRouter, curatorProcedure, viewerProcedure } from "@/server/trpc/init";
import { readStudioRedaction, writeStudioRedaction } from "@/server/playbooks/manage";
import * as erasure from "./erasure";
import {
  ingestResultSchema,
  listTracesInput,
  nulReplacedAt,
  redactionPreviewInput,
  traceBatchSchema,
  traceDeletionResultSchema,
  traceExportInput,
  traceIdInput,
  traceSelectionSchema,
} from "./schemas";
import * as service from "./service";

export const traceRouter = createTRPCRouter({
  /** The same ingest as POST /api/v1/traces, for the studio (e.g. a file of traces uploaded). */
  ingest: curatorProcedure
    .meta({ playbook: "tracePlaybooks" })
    // As over HTTP: an agent's text may hold NUL characters, stored as U+FFFD (traces/repository.ts); its names may not.
    .meta({ allowNul: nulReplacedAt })
    .input(traceBatchSchema)
    .output(ingestResultSchema)
    .mutation(({ ctx, input }) => service.ingestTraces(ctx.db, input.traces, { source: "studio", who: ctx })),

  list: viewerProcedure
    .meta({ playbook: "playbookId?" })
    .input(listTracesInput)
    .query(({ ctx, input }) => service.listTraces(ctx.db, input, playbookScopeOf(ctx.principal))),

  get: viewerProcedure
    .meta({ playbook: "traceId" })
    .input(traceIdInput)
    .query(({ ctx, input }) => service.getTrace(ctx.db, input.traceId)),

  /** The studio default redaction settings: what playbooks without settings of their own redact. */
  studioRedaction: viewerProcedure.meta({ playbook: "studio" }).query(({ ctx }) => readStudioRedaction(ctx.db)),

  setStudioRedaction: adminProcedure
    .meta({ playbook: "studio" })
    .input(redactionSettingsSchema)
    .output(redactionSettingsSchema)
    .mutation(({ ctx, input }) => writeStudioRedaction(ctx.db, ctx, input)),

  /** What redaction settings (a new custom pattern, say) would replace in the playbook's 200 newest traces, before saving them. */
  redactionPreview: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(redactionPreviewInput)
    .query(({ ctx, input }) => service.previewRedaction(ctx.db, input)),

  // Deleting on request: a unit's (or an external id's, or a time range's) traces, counted, exported, deleted.
  selectionSummary: adminProcedure
    .meta({ playbook: "playbookId" })
    .input(traceSelectionSchema)
    .query(({ ctx, input }) => erasure.summarizeSelection(ctx.db, input)),

  exportSelection: adminProcedure
    .meta({ playbook: "selection" })
    .input(traceExportInput)
    .query(({ ctx, input }) => erasure.exportSelectionPage(ctx.db, input.selection, input.cursor)),

  deleteSelection: adminProcedure
    .meta({ playbook: "playbookId" })
    .input(traceSelectionSchema)
    .output(traceDeletionResultSchema)
    .mutation(({ ctx, input }) => erasure.deleteSelection(ctx.db, ctx, input)),
});
