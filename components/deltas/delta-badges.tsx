// Small badges the list and the detail share: where a delta came from and where it stands.
import { Zap } from "lucide-react";
import { Badge, IconBadge } from "@/components/ui/badge";
import type { DeltaListItem, DeltaOrigin } from "@/server/deltas/schemas";
import { deltaState, ORIGIN_META, STATE_META } from "@/components/shared/delta-labels";

export function OriginBadge({ origin }: { origin: DeltaOrigin }) {
  return <IconBadge meta={ORIGIN_META[origin]} />;
}

export function StateBadge({ delta }: { delta: Pick<DeltaListItem, "status" | "flags"> }) {
  const state = deltaState(delta);
  const meta = STATE_META[state];
  return (
    <Badge tone={meta.tone}>
      {state === "auto_applied" ? <Zap aria-hidden /> : null}
      {meta.label}
    </Badge>
  );
}

/** Only what needs a reviewer's eye; the state badge already says "stale". */
export function FlagBadges({ delta }: { delta: Pick<DeltaListItem, "status" | "flags"> }) {
  if (delta.status !== "pending") return null;
  return (
    <>
      {delta.flags.hasErrors ? <Badge tone="red">Problems</Badge> : null}
      {delta.flags.hasDuplicates ? <Badge tone="amber">Near-duplicate</Badge> : null}
    </>
  );
}
