// A run's state and role as badges: text first, colour and icon as second cues.
import { Badge, IconBadge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import type { RunListItem, RunRole } from "@/server/runs/schemas";
import { ROLE_META, RUN_STATE_META, runState } from "@/components/shared/run-labels";

export function RunStateBadge({ run }: { run: Pick<RunListItem, "status" | "error"> }) {
  const meta = RUN_STATE_META[runState(run)];
  return (
    <IconBadge
      meta={meta}
      iconClassName={cn(meta.spin && "animate-spin motion-reduce:animate-none")}
      title={run.status === "queued" && run.error ? run.error : undefined}
    />
  );
}

export function RoleLabel({ role, className }: { role: RunRole; className?: string }) {
  const meta = ROLE_META[role];
  const Icon = meta.icon;
  return (
    <span className={cn("inline-flex items-center gap-1.5 font-medium text-ink", className)}>
      <Icon aria-hidden className="size-3.5 shrink-0 text-ink-faint" />
      {meta.label}
    </span>
  );
}

/** The provider every run names: "offline" is a rule set, not a model, and says so. */
export function ProviderBadge({ provider, model }: { provider: string; model: string }) {
  if (provider === "offline") {
    return (
      <Badge tone="neutral" title="Rule-based, no LLM call">
        offline
      </Badge>
    );
  }
  return (
    <span className="inline-flex min-w-0 items-center gap-1.5">
      <Badge tone="accent">{provider}</Badge>
      <span className="truncate font-mono text-xs text-ink-muted" title={model}>
        {model}
      </span>
    </span>
  );
}
