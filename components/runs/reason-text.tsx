"use client";
// A reason the server wrote ("… paused until 2026-05-04T14:05:00.000Z …") with its timestamps in the
// reader's own clock once the page runs in the browser (UTC, spelled out, before that).
import { useHydrated } from "@/components/ui/use-hydrated";

const ISO = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z\b/g;

export function humanizeTimes(text: string, local: boolean): string {
  return text.replace(ISO, (iso) => {
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso;
    return local
      ? date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" })
      : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  });
}

export function ReasonText({ text }: { text: string }) {
  const hydrated = useHydrated();
  return <>{humanizeTimes(text, hydrated)}</>;
}
