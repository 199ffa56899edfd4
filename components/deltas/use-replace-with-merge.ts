"use client";
// "Use suggested merge" on a near-duplicate. An operation keeps its type when edited (the server's
// rule), so the merge cannot replace an add in place: it is proposed as a delta of its own, with
// the original's evidence, and the operation is rejected with a pointer to it. Both stay in the
// history; nothing is lost.
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { errorMessage } from "@/components/ui/errors";
import { shortId } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { DeltaView, MergeOperation, OperationInput, OperationView } from "@/server/deltas/schemas";
import { toOperationInput } from "./operation-form";

export function useReplaceWithMerge(delta: DeltaView, onProposed: (deltaId: string) => void) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  // Mutations of its own: their toasts and the selection afterwards are this path's, not the queue's.
  const propose = useMutation(trpc.delta.propose.mutationOptions());
  const reject = useMutation(trpc.delta.reject.mutationOptions());
  const [pending, setPending] = useState(false);

  async function replace(op: OperationView, suggestion: MergeOperation) {
    setPending(true);
    try {
      const why = `Suggested merge in place of operation ${op.position + 1} of delta ${shortId(delta.id)}`;
      const proposed = await propose.mutateAsync({
        playbookId: delta.playbookId,
        rationale: `${why}${delta.rationale ? `: ${delta.rationale}` : ""}`.slice(0, 10_000),
        confidence: delta.confidence,
        evidence: delta.evidence,
        operations: [{ operation: toOperationInput(suggestion), rationale: op.rationale }, ...countersOf(op, suggestion.into)],
      });
      await reject.mutateAsync({
        deltaId: delta.id,
        operationIds: [op.id],
        reason: `Replaced by a merge into [${suggestion.into}] (delta ${shortId(proposed.deltaId)})`,
      });
      toast.success("Merge proposed in its place", {
        description: `Operation ${op.position + 1} was rejected and a merge into [${suggestion.into}] waits for approval.`,
      });
      await invalidate();
      onProposed(proposed.deltaId);
    } catch (error) {
      toast.error(errorMessage(error));
    } finally {
      setPending(false);
    }
  }

  return { replace, pending };
}

/**
 * An add that starts with counters (an external loop's counts) hands them to the bullet it is merged
 * into, as a merge sums the counters of what it folds together.
 */
function countersOf(op: OperationView, into: string): { operation: OperationInput; rationale: string }[] {
  const { payload } = op;
  if (payload.type !== "add" || !(payload.helpful || payload.harmful || payload.neutral)) return [];
  const { helpful, harmful, neutral } = payload;
  return [
    { operation: { type: "tag", bulletId: into, helpful, harmful, neutral }, rationale: "The counters the added bullet started with." },
  ];
}
