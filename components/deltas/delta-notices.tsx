// The two notices above a delta: a conflict (someone decided or changed something first) and a
// stale delta (its targets changed since it was proposed).
import { RefreshCw } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Notice } from "@/components/ui/notice";

export function ConflictNotice({ message, onReload }: { message: string; onReload: () => void }) {
  return (
    <Notice
      tone="warning"
      title="Someone changed this playbook a moment ago; nothing was applied."
      actions={
        <Button size="sm" variant="secondary" onClick={onReload}>
          <RefreshCw aria-hidden /> Reload
        </Button>
      }
    >
      Reload to review against the latest version. Your choices below are kept.
      <span className="mt-1 block text-xs opacity-80">{message}</span>
    </Notice>
  );
}

export function StaleNotice({
  becameStale = false,
  reasons,
  disabled,
  rebasing,
  onRebase,
  onReject,
}: {
  /** It was current when opened and became stale since (someone changed what it targets). */
  becameStale?: boolean;
  reasons: readonly string[];
  disabled: boolean;
  rebasing: boolean;
  onRebase: () => void;
  onReject: () => void;
}) {
  return (
    <Notice
      tone="warning"
      title={
        becameStale
          ? "Became stale while you were reviewing it: what it changes was just changed"
          : "Stale: what it changes was changed since it was proposed"
      }
      actions={
        <>
          <Button size="sm" variant="secondary" disabled={disabled || rebasing} onClick={onRebase}>
            <RefreshCw aria-hidden /> {rebasing ? "Re-basing…" : "Re-base"}
          </Button>
          <Button size="sm" variant="ghost" disabled={disabled} onClick={onReject}>
            Reject…
          </Button>
        </>
      }
    >
      <ul className="list-disc pl-4">
        {reasons.map((reason) => (
          <li key={reason}>{reason}</li>
        ))}
      </ul>
      <p className="mt-1">Re-base to check it against the current version, then review it again; or reject it.</p>
    </Notice>
  );
}
