import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import type { BulletSignal } from "@/server/playbooks/schemas";
import { SIGNAL_META } from "./labels";

/** The signal as text on a tinted badge with a dot: colour is a second cue, never the only one. */
export function SignalBadge({ signal }: { signal: BulletSignal }) {
  const meta = SIGNAL_META[signal];
  return (
    <Badge tone={meta.tone}>
      <span aria-hidden className={cn("size-1.5 rounded-full", meta.dot)} />
      {meta.label}
    </Badge>
  );
}

export function SignalDot({ signal, className }: { signal: BulletSignal; className?: string }) {
  return <span aria-hidden className={cn("inline-block size-2 shrink-0 rounded-full", SIGNAL_META[signal].dot, className)} />;
}
