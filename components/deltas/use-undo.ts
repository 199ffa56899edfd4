"use client";
// "Undo" in the toast that confirms an approval, a rejection or a rollback. The server undoes it only
// while nothing later touched what it changed; otherwise its refusal, which says what did, replaces
// the toast.
import { useMutation } from "@tanstack/react-query";
import { useCallback } from "react";
import { toast } from "sonner";
import { errorMessage } from "@/components/ui/errors";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { UndoResult } from "@/server/deltas/schemas";

/** Long enough to notice a wrong click and reach the button. */
const UNDO_TOAST_MS = 12_000;

export function useUndoToast() {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const { mutate } = useMutation(trpc.delta.undo.mutationOptions());

  return useCallback(
    (message: string, deltaId: string, options: { description?: string; onUndone?: (result: UndoResult) => void } = {}) => {
      const id = toast.success(message, {
        description: options.description,
        duration: UNDO_TOAST_MS,
        action: {
          label: "Undo",
          onClick: (event) => {
            // The toast stays until the undo answers, then shows how it went.
            event.preventDefault();
            toast.loading("Undoing…", { id, description: undefined, action: undefined, duration: Infinity });
            mutate(
              { deltaId },
              {
                onSuccess: async (result) => {
                  toast.success(result.message, { id, duration: 6_000 });
                  await invalidate();
                  options.onUndone?.(result);
                },
                onError: (error) => {
                  toast.error("Not undone", { id, description: errorMessage(error), duration: 12_000 });
                },
              },
            );
          },
        },
      });
    },
    [invalidate, mutate],
  );
}
