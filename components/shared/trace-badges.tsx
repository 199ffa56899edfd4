import { Check, Clock } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import type { TraceOutcome } from "@/server/traces/schemas";
import { OUTCOME_META } from "./trace-labels";

export function OutcomeBadge({ outcome }: { outcome: TraceOutcome }) {
  const meta = OUTCOME_META[outcome];
  const Icon = meta.icon;
  return (
    <Badge tone={meta.tone}>
      <Icon aria-hidden />
      {meta.label}
    </Badge>
  );
}

/** Whether the reflector has read the trace yet. */
export function ReflectedBadge({ reflectedAt }: { reflectedAt: Date | null }) {
  return reflectedAt ? (
    <Badge tone="accent" title={`Reflected ${reflectedAt.toISOString()}`}>
      <Check aria-hidden /> Reflected
    </Badge>
  ) : (
    <Badge tone="neutral">
      <Clock aria-hidden /> Not reflected
    </Badge>
  );
}
