"use client";
// Counts at a glance; each one is also a shortcut to the matching filter.
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";
import { formatNumber } from "@/components/ui/format";
import { BULLET_SIGNALS, type PlaybookDetail } from "@/server/playbooks/schemas";
import { SIGNAL_META } from "./labels";
import { SignalDot } from "./signal-badge";
import type { BulletFiltersApi } from "./use-bullet-filters";

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

export function SummaryStrip({ playbook, api }: { playbook: PlaybookDetail; api: BulletFiltersApi }) {
  const { summary } = playbook;
  const { filters, update } = api;
  return (
    <section aria-label="Summary" className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-8">
      {/* A shortcut back to every active bullet rather than a toggle, so it is never shown "on". */}
      <Stat label="Active bullets" value={summary.active} onClick={() => update({ status: "active", signals: [] })} />
      <Stat
        label="Archived"
        value={summary.archived}
        pressed={filters.status === "archived"}
        onClick={() => update({ status: filters.status === "archived" ? "active" : "archived" })}
      />
      {BULLET_SIGNALS.map((signal) => {
        const on = filters.signals.includes(signal);
        return (
          <Stat
            key={signal}
            label={SIGNAL_META[signal].label}
            icon={<SignalDot signal={signal} />}
            value={summary.signals[signal]}
            pressed={on}
            onClick={() => update({ signals: on ? filters.signals.filter((s) => s !== signal) : [...filters.signals, signal] })}
          />
        );
      })}
      <div className="rounded-lg border border-line bg-surface px-3 py-2.5 shadow-card">
        <div className="text-xs text-ink-muted">Est. prompt tokens</div>
        <div
          className="mt-0.5 text-lg font-semibold tabular-nums tracking-tight text-ink"
          title={`${formatNumber(summary.estimatedTokens)} tokens (o200k tokenizer)`}
        >
          {compact.format(summary.estimatedTokens)}
        </div>
      </div>
    </section>
  );
}

function Stat({
  label,
  value,
  icon,
  pressed,
  onClick,
}: {
  label: string;
  value: number;
  icon?: ReactNode;
  /** Omitted for plain shortcuts; true/false for filter toggles. */
  pressed?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      aria-pressed={pressed}
      onClick={onClick}
      className={cn(
        "rounded-lg border px-3 py-2.5 text-left shadow-card transition-colors",
        pressed ? "border-accent/60 bg-accent-soft" : "border-line bg-surface hover:border-line-strong hover:bg-subtle/60",
      )}
    >
      <span className={cn("flex items-center gap-1.5 text-xs", pressed ? "text-accent-ink" : "text-ink-muted")}>
        {icon}
        {label}
      </span>
      <span className={cn("mt-0.5 block text-lg font-semibold tabular-nums tracking-tight", value === 0 ? "text-ink-faint" : "text-ink")}>
        {formatNumber(value)}
      </span>
    </button>
  );
}
