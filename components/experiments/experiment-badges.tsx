// Small pieces the experiment list, page and the playbook's card share: the status (or the shipped
// decision), the SRM flag, the progress toward the planned sample, what a variant serves.
import { CircleAlert, CircleDot, CircleStop, PencilLine, Rocket } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { formatNumber } from "@/components/ui/format";
import type { Decision, ExperimentStatus, VariantTarget } from "@/server/experiments/schemas";

export const STATUS_META: Record<ExperimentStatus, { label: string; tone: "blue" | "gray" | "neutral" }> = {
  draft: { label: "Draft", tone: "gray" },
  running: { label: "Running", tone: "blue" },
  stopped: { label: "Stopped", tone: "neutral" },
};

export function StatusBadge({ status, decision }: { status: ExperimentStatus; decision?: Pick<Decision, "action" | "variant"> | null }) {
  if (status === "stopped" && decision?.action === "ship" && decision.variant) {
    return (
      <Badge tone="green" title={`Stopped; variant ${decision.variant} was shipped`}>
        <Rocket aria-hidden /> Shipped {decision.variant}
      </Badge>
    );
  }
  const meta = STATUS_META[status];
  const Icon = status === "running" ? CircleDot : status === "stopped" ? CircleStop : PencilLine;
  return (
    <Badge tone={meta.tone}>
      <Icon aria-hidden /> {meta.label}
    </Badge>
  );
}

/** The sample-ratio mismatch flag: the split is off, so no figure can be trusted. */
export function SrmBadge() {
  return (
    <Badge
      tone="red"
      title="Sample ratio mismatch: the units per variant do not match the weights (p < 0.001). The results cannot be trusted."
    >
      <CircleAlert aria-hidden /> SRM
    </Badge>
  );
}

/**
 * How far the experiment is toward its planned sample (the smallest variant's units ÷ the planned
 * units per variant): a bar with the percentage and a caption. Without a plan, the caption alone.
 */
export function SampleProgress({ fraction, caption, className }: { fraction: number | null; caption: string; className?: string }) {
  if (fraction === null) {
    return <span className={cn("text-xs tabular-nums text-ink-muted", className)}>{caption} · no planned sample</span>;
  }
  const percent = Math.floor(Math.min(1, Math.max(0, fraction)) * 100);
  return (
    <div className={cn("flex min-w-0 flex-col gap-1", className)}>
      <div
        role="progressbar"
        aria-label="Progress to the planned sample"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent} %: ${caption}`}
        className="h-1.5 w-full overflow-hidden rounded-full bg-subtle ring-1 ring-inset ring-line"
      >
        <div className={cn("h-full rounded-full", percent >= 100 ? "bg-emerald-600" : "bg-accent")} style={{ width: `${percent}%` }} />
      </div>
      <span className="text-xs tabular-nums text-ink-muted">
        {percent} % · {caption}
      </span>
    </div>
  );
}

/** "1,240 of 1,500 units per variant". */
export function progressCaption(unitsPerVariant: number, planned: number | null): string {
  return planned === null
    ? `${formatNumber(unitsPerVariant)} units per variant`
    : `${formatNumber(unitsPerVariant)} of ${formatNumber(planned)} units per variant`;
}

/** What a variant serves, in words: "Version 3 (pinned)", "Latest version", "No playbook", "Playbook “Refunds”". */
export function targetLabel(target: VariantTarget): string {
  switch (target.kind) {
    case "version":
      return `Version ${target.playbookVersion} (pinned)`;
    case "latest":
      return "Latest version";
    case "noPlaybook":
      return "No playbook (empty context)";
    case "playbook":
      return target.playbook ? `Playbook “${target.playbook}”` : "Another playbook (deleted since)";
  }
}
