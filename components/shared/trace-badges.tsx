import { Check, Clock } from "lucide-react";
import Link from "next/link";
import { Badge, IconBadge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { RelativeTime } from "@/components/ui/relative-time";
import { traceHref } from "@/components/ui/routes";
import type { TraceOutcome } from "@/server/traces/schemas";
import { OUTCOME_META } from "./trace-labels";

export function OutcomeBadge({ outcome }: { outcome: TraceOutcome }) {
  return <IconBadge meta={OUTCOME_META[outcome]} />;
}

/** A trace in a short list (a delta's evidence, the traces that cited a bullet): its outcome, its task as a link, when. */
export function TraceLine({
  trace,
  className,
}: {
  trace: { id: string; outcome: TraceOutcome; task: string; timestamp: Date };
  className?: string;
}) {
  return (
    <li className={cn("flex min-w-0 items-start gap-2", className)}>
      <OutcomeBadge outcome={trace.outcome} />
      <Link href={traceHref(trace.id)} className="min-w-0 flex-1 text-ink hover:text-accent-ink hover:underline">
        <span className="line-clamp-2 break-words">{trace.task || "Untitled task"}</span>
      </Link>
      <RelativeTime date={trace.timestamp} className="shrink-0 text-xs text-ink-faint" />
    </li>
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
