// A monthly LLM budget as meters: tokens and dollars used of their limits, amber from 75 %, red
// when used up (new runs then wait), and the sentence the server wrote about it.
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";
import { Notice } from "@/components/ui/notice";
import type { BudgetUsage } from "@/server/runs/schemas";
import { formatCost, formatPercent, formatTokens } from "@/components/ui/format";

const BAR_TONES = { ok: "bg-accent", warning: "bg-amber-500", exceeded: "bg-danger" } as const;

function levelOf(share: number): BudgetUsage["level"] {
  return share >= 1 ? "exceeded" : share >= 0.75 ? "warning" : "ok";
}

function Meter({ label, used, limit, share }: { label: string; used: string; limit: string; share: number }) {
  const level = levelOf(share);
  return (
    <div className="flex flex-col gap-1.5">
      <div className="flex items-baseline justify-between gap-3 text-[13px]">
        <span className="text-ink-muted">{label}</span>
        <span className="tabular-nums text-ink">
          <span className="font-medium">{used}</span> <span className="text-ink-faint">of {limit}</span>
          <span
            className={cn(
              "ml-2 font-medium",
              level === "exceeded" ? "text-danger" : level === "warning" ? "text-amber-800" : "text-ink-muted",
            )}
          >
            {formatPercent(share)}
          </span>
        </span>
      </div>
      <div
        role="meter"
        aria-label={`${label} used`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(Math.min(share, 1) * 100)}
        aria-valuetext={`${used} of ${limit} (${formatPercent(share)})`}
        className="h-2 overflow-hidden rounded-full bg-line"
      >
        <div className={cn("h-full rounded-full transition-[width]", BAR_TONES[level])} style={{ width: `${Math.min(share, 1) * 100}%` }} />
      </div>
    </div>
  );
}

export function BudgetMeter({ usage, title, action }: { usage: BudgetUsage; title: string; action?: ReactNode }) {
  const month = usage.monthStart.toISOString().slice(0, 7);
  const unlimited = usage.tokenLimit === null && usage.costLimitUsd === null;
  return (
    <div className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <h3 className="text-sm font-semibold text-ink">{title}</h3>
        <span className="whitespace-nowrap text-xs text-ink-faint" title="Budgets run by calendar month, UTC">
          {month}
        </span>
        {action ? <div className="ml-auto">{action}</div> : null}
      </div>
      {unlimited ? (
        <p className="text-[13px] text-ink-muted">
          No limit. Used this month: <span className="font-medium tabular-nums text-ink">{formatTokens(usage.tokens)}</span> tokens ·{" "}
          <span className="font-medium tabular-nums text-ink">{formatCost(usage.costUsd)}</span>
        </p>
      ) : (
        <>
          {usage.tokenLimit !== null ? (
            <Meter
              label="Tokens"
              used={formatTokens(usage.tokens)}
              limit={formatTokens(usage.tokenLimit)}
              share={usage.tokens / usage.tokenLimit}
            />
          ) : null}
          {usage.costLimitUsd !== null ? (
            <Meter
              label="Cost"
              used={formatCost(usage.costUsd)}
              limit={formatCost(usage.costLimitUsd)}
              share={usage.costUsd / usage.costLimitUsd}
            />
          ) : null}
        </>
      )}
      {usage.message ? (
        <Notice tone={usage.level === "exceeded" ? "danger" : "warning"} compact announce={false}>
          {usage.message}
        </Notice>
      ) : null}
    </div>
  );
}
