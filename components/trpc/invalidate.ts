"use client";
// After any change to a playbook: its pages, the queue and the history all read from it, so all
// three are refetched (active queries now, the others when next shown).
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { useTRPC } from "./client";

export function useInvalidateCuration(): () => Promise<void> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useCallback(async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.playbook.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.delta.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.history.pathKey() }),
    ]);
  }, [queryClient, trpc]);
}
