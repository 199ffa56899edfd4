// Thin procedures of the curation queue: validate with zod, call the service.
import { createTRPCRouter, publicProcedure } from "@/server/trpc/init";
import {
  approveDeltaInput,
  bulkDeltaInput,
  bulkResultSchema,
  deltaIdInput,
  deltaOutcomeSchema,
  editDeltaInput,
  listDeltasInput,
  playbookRefInput,
  proposeDeltaInput,
  pruningResultSchema,
  rejectDeltaInput,
  updateOperationInput,
} from "./schemas";
import * as service from "./service";

export const deltaRouter = createTRPCRouter({
  propose: publicProcedure
    .input(proposeDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => service.proposeDelta(ctx.db, ctx.actor, input)),

  /** A person's edit in the browser, applied at once as a delta by that person. */
  edit: publicProcedure
    .input(editDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => service.editPlaybook(ctx.db, ctx.actor, input)),

  list: publicProcedure.input(listDeltasInput).query(({ ctx, input }) => service.listDeltas(ctx.db, input)),

  get: publicProcedure.input(deltaIdInput).query(({ ctx, input }) => service.getDelta(ctx.db, input.deltaId)),

  approve: publicProcedure
    .input(approveDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => service.approveDelta(ctx.db, ctx.actor, input)),

  reject: publicProcedure
    .input(rejectDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => service.rejectDelta(ctx.db, ctx.actor, input)),

  updateOperation: publicProcedure
    .input(updateOperationInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => service.updateOperation(ctx.db, ctx.actor, input)),

  bulk: publicProcedure
    .input(bulkDeltaInput)
    .output(bulkResultSchema)
    .mutation(({ ctx, input }) => service.bulkDecide(ctx.db, ctx.actor, input)),

  rebase: publicProcedure
    .input(deltaIdInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => service.rebaseDelta(ctx.db, ctx.actor, input.deltaId)),

  proposePruning: publicProcedure
    .input(playbookRefInput)
    .output(pruningResultSchema)
    .mutation(({ ctx, input }) => service.proposePruningDelta(ctx.db, ctx.actor, input.playbookId)),
});
