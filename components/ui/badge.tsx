import type { LucideIcon } from "lucide-react";
import type { HTMLAttributes } from "react";
import { cn } from "./cn";

/** Tones pair a tinted background with a dark text of the same hue (all ≥ 4.5:1). */
export const BADGE_TONES = {
  neutral: "bg-subtle text-ink-muted ring-line",
  accent: "bg-accent-soft text-accent-ink ring-indigo-200",
  green: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  red: "bg-rose-50 text-rose-800 ring-rose-200",
  amber: "bg-amber-50 text-amber-900 ring-amber-200",
  blue: "bg-sky-50 text-sky-800 ring-sky-200",
  gray: "bg-zinc-100 text-zinc-700 ring-zinc-200",
} as const;

export type BadgeTone = keyof typeof BADGE_TONES;

export function Badge({ tone = "neutral", className, ...props }: HTMLAttributes<HTMLSpanElement> & { tone?: BadgeTone }) {
  return (
    <span
      className={cn(
        "inline-flex h-5 shrink-0 items-center gap-1 whitespace-nowrap rounded-md px-1.5 text-xs font-medium ring-1 ring-inset",
        "[&_svg]:size-3 [&_svg]:shrink-0",
        BADGE_TONES[tone],
        className,
      )}
      {...props}
    />
  );
}

/** A badge from a label table's entry (outcome, origin, run state): its tone, then its icon and label. */
export function IconBadge({
  meta,
  iconClassName,
  title,
}: {
  meta: { tone: BadgeTone; icon: LucideIcon; label: string };
  iconClassName?: string;
  title?: string;
}) {
  const Icon = meta.icon;
  return (
    <Badge tone={meta.tone} title={title}>
      <Icon aria-hidden className={iconClassName} />
      {meta.label}
    </Badge>
  );
}
