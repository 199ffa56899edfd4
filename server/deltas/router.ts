// Thin procedures of the curation queue: validate with zod, call the domain function.
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
  undoResultSchema,
  updateOperationInput,
  watchQueueInput,
} from "./schemas";
import { editPlaybook } from "./edit";
import { proposeDelta, proposePruningDelta } from "./propose";
import { getDelta, listDeltas, watchQueue } from "./queries";
import { approveDelta, bulkDecide, rebaseDelta, rejectDelta, updateOperation } from "./review";
import { undoDecision } from "./undo";

export const deltaRouter = createTRPCRouter({
  propose: publicProcedure
    .input(proposeDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => proposeDelta(ctx.db, ctx.actor, input)),

  /** A person's edit in the browser, applied at once as a delta by that person. */
  edit: publicProcedure
    .input(editDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => editPlaybook(ctx.db, ctx.actor, input)),

  list: publicProcedure.input(listDeltasInput).query(({ ctx, input }) => listDeltas(ctx.db, input)),

  get: publicProcedure.input(deltaIdInput).query(({ ctx, input }) => getDelta(ctx.db, input.deltaId)),

  /** Changes whenever the queue or a playbook in it does: the review page polls it, then refetches. */
  watch: publicProcedure.input(watchQueueInput).query(({ ctx, input }) => watchQueue(ctx.db, input.playbookId)),

  approve: publicProcedure
    .input(approveDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => approveDelta(ctx.db, ctx.actor, input)),

  reject: publicProcedure
    .input(rejectDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => rejectDelta(ctx.db, ctx.actor, input)),

  updateOperation: publicProcedure
    .input(updateOperationInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => updateOperation(ctx.db, ctx.actor, input)),

  bulk: publicProcedure
    .input(bulkDeltaInput)
    .output(bulkResultSchema)
    .mutation(({ ctx, input }) => bulkDecide(ctx.db, ctx.actor, input)),

  /** Undoes an approval, a rejection or a rollback while nothing later touched what it changed. */
  undo: publicProcedure
    .input(deltaIdInput)
    .output(undoResultSchema)
    .mutation(({ ctx, input }) => undoDecision(ctx.db, ctx.actor, input.deltaId)),

  rebase: publicProcedure
    .input(deltaIdInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => rebaseDelta(ctx.db, ctx.actor, input.deltaId)),

  proposePruning: publicProcedure
    .input(playbookRefInput)
    .output(pruningResultSchema)
    .mutation(({ ctx, input }) => proposePruningDelta(ctx.db, ctx.actor, input.playbookId)),
});
