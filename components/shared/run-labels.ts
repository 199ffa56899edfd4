// Words, tones and icons for runs, in one place so the list, the run page and the playbook's Runs
// tab say the same thing.
import { Bot, CircleCheck, CircleX, Clock, Hourglass, LoaderCircle, RotateCw, ScanSearch, type LucideIcon } from "lucide-react";
import type { BadgeTone } from "@/components/ui/badge";
import type { RunListItem, RunRole, RunStatus, RunTrigger } from "@/server/runs/schemas";
import type { RunMode } from "@/server/playbooks/schemas";

export const ROLE_META: Record<RunRole, { label: string; icon: LucideIcon; does: string }> = {
  reflector: { label: "Reflector", icon: ScanSearch, does: "reads one trace and tags the bullets it cited" },
  curator: { label: "Curator", icon: Bot, does: "turns recent reflections into a proposed delta" },
};

/**
 * What a run's badge says. A queued run can be plainly waiting its turn, waiting on something
 * (a budget, the circuit breaker: the error says "Waiting: …"), or waiting to retry a failed attempt.
 */
export type RunState = RunStatus | "waiting" | "retrying";

export const RUN_STATE_META: Record<RunState, { label: string; tone: BadgeTone; icon: LucideIcon; spin?: boolean }> = {
  queued: { label: "Queued", tone: "gray", icon: Clock },
  waiting: { label: "Waiting", tone: "amber", icon: Hourglass },
  retrying: { label: "Retrying", tone: "amber", icon: RotateCw },
  running: { label: "Running", tone: "blue", icon: LoaderCircle, spin: true },
  succeeded: { label: "Succeeded", tone: "green", icon: CircleCheck },
  failed: { label: "Failed", tone: "red", icon: CircleX },
};

export const RUN_STATUS_LABELS: Record<RunStatus, string> = {
  queued: "Queued",
  running: "Running",
  succeeded: "Succeeded",
  failed: "Failed",
};

export function runState(run: Pick<RunListItem, "status" | "error">): RunState {
  if (run.status !== "queued" || !run.error) return run.status;
  if (run.error.startsWith("Waiting")) return "waiting";
  return "retrying";
}

/** Queued or running: the page keeps asking until it ends. */
export function isActive(run: Pick<RunListItem, "status">): boolean {
  return run.status === "queued" || run.status === "running";
}

export const TRIGGER_LABELS: Record<RunTrigger, string> = {
  manual: "By a person",
  auto: "Automatic",
  api: "By an agent",
};

export function triggerLabel(trigger: string): string {
  return (TRIGGER_LABELS as Record<string, string>)[trigger] ?? trigger;
}

export const MODE_LABELS: Record<RunMode, string> = {
  auto: "Automatic",
  manual: "Manual",
  off: "Off",
};
