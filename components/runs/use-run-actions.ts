"use client";
// The run actions a person can take (reflect now, curate now, retry, pause), each with its toast and
// the refetches that follow: runs, traces, and the playbook, whose counters and queue they change.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { toast } from "sonner";
import { errorMessage } from "@/components/ui/errors";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";

export function useInvalidateRuns(): () => Promise<void> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invalidateCuration = useInvalidateCuration();
  return useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.runs.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.traces.pathKey() }),
      invalidateCuration(),
    ]);
  }, [queryClient, trpc, invalidateCuration]);
}

const onError = (error: unknown) => {
  toast.error(errorMessage(error));
};

/** "2 reflector runs queued." is news; "Nothing to do: …" (no run queued) is only information. */
function announce(result: { runIds: string[]; message: string }) {
  if (result.runIds.length > 0) toast.success(result.message);
  else toast.info(result.message);
}

export function useReflectNow() {
  const trpc = useTRPC();
  const invalidate = useInvalidateRuns();
  return useMutation(
    trpc.runs.reflectNow.mutationOptions({
      onSuccess: async (result) => {
        announce(result);
        await invalidate();
      },
      onError,
    }),
  );
}

export function useCurateNow() {
  const trpc = useTRPC();
  const invalidate = useInvalidateRuns();
  return useMutation(
    trpc.runs.curateNow.mutationOptions({
      onSuccess: async (result) => {
        announce(result);
        await invalidate();
      },
      onError,
    }),
  );
}

export function useRetryRun() {
  const trpc = useTRPC();
  const invalidate = useInvalidateRuns();
  return useMutation(
    trpc.runs.retry.mutationOptions({
      onSuccess: async (result) => {
        toast.success(result.message);
        await invalidate();
      },
      onError,
    }),
  );
}

export function useSetPaused() {
  const trpc = useTRPC();
  const invalidate = useInvalidateRuns();
  return useMutation(
    trpc.runs.setPaused.mutationOptions({
      onSuccess: async (result) => {
        toast.success(result.paused ? "Runs of this playbook are paused. Queued runs wait until you resume." : "Runs resumed.");
        await invalidate();
      },
      onError,
    }),
  );
}
