"use client";
// "Undo" in the toast that confirms an approval, a rejection or a rollback. The server undoes it only
// while nothing later touched what it changed; otherwise its refusal, which says what did, replaces
// the toast.
//
// The toast outlives the component that offered it: the approved delta's panel gives way to the next
// delta, the rollback dialog closes. Callbacks given to `mutate()` run only while the component that
// owns the mutation is mounted (TanStack Query drops them once its observer has no listeners), so the
// answer is awaited from `mutateAsync`'s promise, which settles whether or not anyone still listens.
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
  const { mutateAsync } = useMutation(trpc.delta.undo.mutationOptions());

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
            mutateAsync({ deltaId }).then(
              async (result) => {
                toast.success(result.message, { id, description: undefined, duration: 6_000 });
                await invalidate();
                options.onUndone?.(result);
              },
              (error: unknown) => {
                toast.error("Not undone", { id, description: errorMessage(error), duration: 12_000 });
              },
            );
          },
        },
      });
    },
    [invalidate, mutateAsync],
  );
}
