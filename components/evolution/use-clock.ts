"use client";
// The time presets are resolved against: the server's request time while hydrating (so the first
// query is the one the server prefetched), then a clock that ticks every 30 s. A preset's range
// only moves when a bucket boundary passes, so the charts roll forward on their own, without a
// query per tick.
import { useSyncExternalStore } from "react";

const TICK_MS = 30_000;
let clock = 0;
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void) {
  listeners.add(listener);
  if (!timer) {
    clock = Date.now();
    timer = setInterval(() => {
      clock = Date.now();
      listeners.forEach((notify) => notify());
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function snapshot(): number {
  // Unsubscribed, the clock stands still: a tab opened later starts from the time it opens. Within
  // one render the value stays the same, as React requires.
  if (!timer && Date.now() - clock > TICK_MS) clock = Date.now();
  return clock;
}

export function useClock(serverTime: number): number {
  return useSyncExternalStore(subscribe, snapshot, () => serverTime);
}
