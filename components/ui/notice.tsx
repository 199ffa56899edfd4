// A tinted callout for problems, warnings and outcomes. An icon and a title carry the meaning as
// well as the colour; "alert" tones interrupt a screen reader, the others wait their turn.
import { CircleAlert, CircleCheck, Info, TriangleAlert } from "lucide-react";
import type { ReactNode } from "react";
import { cn } from "./cn";
import { errorMessage } from "./errors";

const TONES = {
  danger: { box: "border-rose-200 bg-danger-soft text-rose-900", icon: CircleAlert, iconClass: "text-danger", role: "alert" },
  warning: { box: "border-amber-200 bg-amber-50 text-amber-950", icon: TriangleAlert, iconClass: "text-amber-700", role: "alert" },
  info: { box: "border-sky-200 bg-sky-50 text-sky-950", icon: Info, iconClass: "text-sky-700", role: "status" },
  success: { box: "border-emerald-200 bg-emerald-50 text-emerald-950", icon: CircleCheck, iconClass: "text-emerald-700", role: "status" },
} as const;

export type NoticeTone = keyof typeof TONES;

export function Notice({
  tone,
  title,
  children,
  actions,
  className,
  compact,
  announce = true,
}: {
  tone: NoticeTone;
  title?: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  className?: string;
  /** Smaller padding for notices inside cards and forms. */
  compact?: boolean;
  /** false for notices that are part of the content (findings in a card), not news. */
  announce?: boolean;
}) {
  const meta = TONES[tone];
  const Icon = meta.icon;
  return (
    <div
      role={announce ? meta.role : undefined}
      className={cn("flex gap-2.5 rounded-lg border text-sm", compact ? "px-3 py-2" : "px-4 py-3", meta.box, className)}
    >
      <Icon aria-hidden className={cn("mt-0.5 size-4 shrink-0", meta.iconClass)} />
      <div className="min-w-0 flex-1">
        {title ? <p className="font-medium">{title}</p> : null}
        {children ? <div className={cn("break-words leading-relaxed", title ? "mt-0.5" : null)}>{children}</div> : null}
        {actions ? <div className="mt-2.5 flex flex-wrap gap-2">{actions}</div> : null}
      </div>
    </div>
  );
}

/** A form's or dialog's error, or nothing: a sentence of the form's own, or any error the server sent. */
export function ErrorNotice({ error, className }: { error: unknown; className?: string }) {
  if (!error) return null;
  return (
    <Notice tone="danger" compact className={className}>
      {typeof error === "string" ? error : errorMessage(error)}
    </Notice>
  );
}
