// Words, tones and icons for traces, shared by the explorer, the trace page and the Runs tab.
import { CircleCheck, CircleHelp, CircleX, type LucideIcon } from "lucide-react";
import type { BadgeTone } from "@/components/ui/badge";
import type { TraceOutcome } from "@/server/traces/schemas";

export const OUTCOME_META: Record<TraceOutcome, { label: string; tone: BadgeTone; icon: LucideIcon }> = {
  success: { label: "Success", tone: "green", icon: CircleCheck },
  failure: { label: "Failure", tone: "red", icon: CircleX },
  unknown: { label: "Unknown", tone: "gray", icon: CircleHelp },
};

/** The first line of a task, for a title; tasks often start with their question. */
export function taskTitle(task: string, max = 140): string {
  const line = task.trim().split("\n")[0] ?? "";
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line || "Untitled task";
}
