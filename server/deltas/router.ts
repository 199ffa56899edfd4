// Thin procedures of the curation queue: validate with zod, call the domain function.
import { playbookScopeOf } from "@/server/access/restriction";
import { createTRPCRouter, curatorProcedure, viewerProcedure } from "@/server/trpc/init";
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
  propose: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(proposeDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => proposeDelta(ctx.db, ctx, input)),

  /** A person's edit in the browser, applied at once as a delta by that person. */
  edit: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(editDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => editPlaybook(ctx.db, ctx, input)),

  list: viewerProcedure
    .meta({ playbook: "playbookId?" })
    .input(listDeltasInput)
    .query(({ ctx, input }) => listDeltas(ctx.db, input, playbookScopeOf(ctx.principal))),

  get: viewerProcedure
    .meta({ playbook: "deltaId" })
    .input(deltaIdInput)
    .query(({ ctx, input }) => getDelta(ctx.db, input.deltaId)),

  /** Changes whenever the queue or a playbook in it does: the review page polls it, then refetches. */
  watch: viewerProcedure
    .meta({ playbook: "playbookId!" })
    .input(watchQueueInput)
    .query(({ ctx, input }) => watchQueue(ctx.db, input.playbookId)),

  approve: curatorProcedure
    .meta({ playbook: "deltaId" })
    .input(approveDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => approveDelta(ctx.db, ctx, input)),

  reject: curatorProcedure
    .meta({ playbook: "deltaId" })
    .input(rejectDeltaInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => rejectDelta(ctx.db, ctx, input)),

  updateOperation: curatorProcedure
    .meta({ playbook: "deltaId" })
    .input(updateOperationInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => updateOperation(ctx.db, ctx, input)),

  bulk: curatorProcedure
    .meta({ playbook: "deltaIds" })
    .input(bulkDeltaInput)
    .output(bulkResultSchema)
    .mutation(({ ctx, input }) => bulkDecide(ctx.db, ctx, input)),

  /** Undoes an approval, a rejection or a rollback while nothing later touched what it changed. */
  undo: curatorProcedure
    .meta({ playbook: "deltaId" })
    .input(deltaIdInput)
    .output(undoResultSchema)
    .mutation(({ ctx, input }) => undoDecision(ctx.db, ctx, input.deltaId)),

  rebase: curatorProcedure
    .meta({ playbook: "deltaId" })
    .input(deltaIdInput)
    .output(deltaOutcomeSchema)
    .mutation(({ ctx, input }) => rebaseDelta(ctx.db, ctx, input.deltaId)),

  proposePruning: curatorProcedure
    .meta({ playbook: "playbookId" })
    .input(playbookRefInput)
    .output(pruningResultSchema)
    .mutation(({ ctx, input }) => proposePruningDelta(ctx.db, ctx, input.playbookId)),
});
