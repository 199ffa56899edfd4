import { Check, Clock } from "lucide-react";
import { Badge, IconBadge } from "@/components/ui/badge";
import type { TraceOutcome } from "@/server/traces/schemas";
import { OUTCOME_META } from "./trace-labels";

export function OutcomeBadge({ outcome }: { outcome: TraceOutcome }) {
  return <IconBadge meta={OUTCOME_META[outcome]} />;
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
