"use client";
// Calls back once when something that was queued or running has finished: the moment to refetch
// what the run changed (counters, the queue, the playbook's version).
import { useEffect, useRef } from "react";

export function useWhenSettled(active: boolean, onSettled: () => void): void {
  const previous = useRef(active);
  const callback = useRef(onSettled);
  useEffect(() => {
    callback.current = onSettled;
  });
  useEffect(() => {
    if (previous.current && !active) callback.current();
    previous.current = active;
  }, [active]);
}
