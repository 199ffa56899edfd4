"use client";
// false during the server render and hydration, true after: for text only the browser can know
// (its origin, its clock, its time zone) without a hydration mismatch.
import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
