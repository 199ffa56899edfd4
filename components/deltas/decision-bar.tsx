// The bar at the foot of a pending delta: what an approval would take, and the two decisions.
import { Check, X } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";
import { plural } from "@/components/ui/format";
import type { OperationView } from "@/server/deltas/schemas";

/** Why Approve cannot go ahead, in a sentence; null when it can. */
export function approvalBlocker({
  stale,
  chosen,
  pendingCount,
}: {
  stale: boolean;
  chosen: readonly OperationView[];
  pendingCount: number;
}): string | null {
  if (stale) return "Re-base or reject: a stale delta cannot be approved.";
  const broken = chosen.find((op) => op.findings.some((finding) => finding.severity === "error"));
  if (broken) return `Operation ${broken.position + 1} has a problem: edit it or leave it out.`;
  if (chosen.length === 0) return pendingCount > 0 ? "Check at least one operation to approve." : "Nothing is left to approve.";
  return null;
}

export function DecisionBar({
  chosen,
  pendingCount,
  blocker,
  disabled,
  approving,
  error,
  onApprove,
  onReject,
}: {
  chosen: readonly OperationView[];
  pendingCount: number;
  blocker: string | null;
  disabled: boolean;
  approving: boolean;
  /** The approval's error in words (not a conflict: that has its own notice). */
  error: string | null;
  onApprove: () => void;
  onReject: () => void;
}) {
  const partial = chosen.length > 0 && chosen.length < pendingCount;
  return (
    <div className="sticky bottom-0 flex flex-col gap-2 rounded-b-card border-t border-line bg-surface px-4 py-3 sm:px-5">
      {error ? (
        <Notice tone="danger" compact>
          {error}
        </Notice>
      ) : null}
      <div className="flex flex-wrap items-center gap-2">
        <p className="mr-auto text-xs text-ink-muted" aria-live="polite">
          {blocker ??
            (partial
              ? `${chosen.length} of ${pendingCount} operations; the other ${pendingCount - chosen.length} will be rejected.`
              : `All ${plural(pendingCount, "operation")}.`)}
        </p>
        <Button variant="secondary" disabled={disabled} onClick={onReject}>
          <X aria-hidden /> Reject…
        </Button>
        <Button variant="primary" disabled={disabled || approving || blocker !== null} onClick={onApprove}>
          <Check aria-hidden />
          {approving ? "Approving…" : partial ? `Approve ${chosen.length} of ${pendingCount}` : "Approve"}
        </Button>
      </div>
    </div>
  );
}
