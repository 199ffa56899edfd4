"use client";
// A person's edit in the browser: one delta.edit call, applied at once as a new version by that
// person. Each control has its own instance, so its error shows next to it.
import { useMutation } from "@tanstack/react-query";
import { useCallback } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { DeltaOutcome, OperationInput } from "@/server/deltas/schemas";
import type { PlaybookDetail } from "@/server/playbooks/schemas";
import { errorMessage } from "@/components/ui/errors";

export function usePlaybookEdit(
  playbook: Pick<PlaybookDetail, "id" | "version">,
  /**
   * errorsAsToasts: for controls with no room for an error beside them (menu items), say it in a toast.
   * ownSuccessToast: the control says the saved version itself (with an action of its own).
   */
  options: { errorsAsToasts?: boolean; ownSuccessToast?: boolean } = {},
) {
  const { errorsAsToasts = false, ownSuccessToast = false } = options;
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const mutation = useMutation(
    trpc.delta.edit.mutationOptions({
      onSuccess: async (outcome) => {
        if (outcome.appliedVersion === null) toast.info(outcome.message);
        else if (!ownSuccessToast) toast.success(outcome.message);
        await invalidate();
      },
      onError: (error) => {
        if (errorsAsToasts) toast.error(errorMessage(error));
      },
    }),
  );
  const { mutate } = mutation;
  const save = useCallback(
    (operations: OperationInput[], reason: string, onSaved?: (outcome: DeltaOutcome) => void) =>
      mutate(
        // expectedVersion: the version on screen. If what the edit touches changed since, the server
        // refuses with CONFLICT rather than overwrite the newer change.
        { playbookId: playbook.id, operations, reason, expectedVersion: playbook.version },
        onSaved ? { onSuccess: onSaved } : undefined,
      ),
    [mutate, playbook.id, playbook.version],
  );
  return { ...mutation, save };
}
