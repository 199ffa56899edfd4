"use client";
// "3 min ago" with the exact local time in a tooltip. The server cannot know the reader's clock
// or time zone, so it renders a UTC date and the browser swaps in the relative text once mounted.
import { useSyncExternalStore } from "react";

let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void) {
  listeners.add(listener);
  // One shared 30 s clock for every timestamp on the page, fresh whenever it (re)starts.
  if (!timer) now = Date.now();
  timer ??= setInterval(() => {
    now = Date.now();
    listeners.forEach((l) => l());
  }, 30_000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The shared clock's time, or null while rendering on the server (which cannot know the reader's). */
function useSharedClock(): number | null {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => null,
  );
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto", style: "short" });

export function formatRelative(date: Date, reference: number): string {
  const seconds = Math.round((date.getTime() - reference) / 1000);
  if (Math.abs(seconds) < 45) return "just now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(Math.round(seconds / 60), "minute");
}

export function formatExact(date: Date): string {
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function RelativeTime({ date, className }: { date: Date; className?: string }) {
  const clock = useSharedClock();
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={clock === null ? iso : formatExact(date)} className={className}>
      {clock === null ? iso.slice(0, 10) : formatRelative(date, clock)}
    </time>
  );
}

/** The exact timestamp for detail views; same server/browser split as above. */
export function ExactTime({ date }: { date: Date }) {
  const clock = useSharedClock();
  const iso = date.toISOString();
  return (
    <time dateTime={iso}>
      {clock === null ? `${iso.slice(0, 19).replace("T", " ")} UTC` : `${formatExact(date)} · ${formatRelative(date, clock)}`}
    </time>
  );
}
