"use client";
// Pin or unpin a bullet from its sheet: one delta by the person, like every edit there. A pinned
// bullet comes first in the context agents are served, whatever its counters.
import { Pin, PinOff } from "lucide-react";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import type { BulletDetail, PlaybookDetail } from "@/server/playbooks/schemas";
import { EditError } from "./edit-feedback";
import { PinBadge } from "./pin-badge";
import { usePlaybookEdit } from "./use-playbook-edit";

export function BulletPinEditor({ bullet, playbook }: { bullet: BulletDetail; playbook: PlaybookDetail }) {
  const edit = usePlaybookEdit(playbook);
  if (bullet.status !== "active") return <span className="text-ink-faint">Archived bullets are not pinned.</span>;
  const { externalId } = bullet;
  return (
    <div className="flex flex-col items-start gap-1.5">
      <div className="flex items-center gap-2">
        {bullet.pinned ? <PinBadge /> : <span className="text-ink-muted">Ranked by its counters</span>}
        <RoleGate action="bullet.edit">
          <Button
            size="sm"
            variant="ghost"
            className="h-7"
            disabled={edit.isPending}
            onClick={() =>
              bullet.pinned
                ? edit.save([{ type: "unpin", bulletId: externalId }], `Unpinned [${externalId}]`)
                : edit.save([{ type: "pin", bulletId: externalId }], `Pinned [${externalId}]`)
            }
          >
            {bullet.pinned ? <PinOff aria-hidden /> : <Pin aria-hidden />}
            {edit.isPending ? (bullet.pinned ? "Unpinning…" : "Pinning…") : bullet.pinned ? "Unpin" : "Pin"}
          </Button>
        </RoleGate>
      </div>
      <p className="text-[13px] text-ink-faint">Pinned bullets come first in the context agents get (at most 50 per playbook).</p>
      <EditError error={edit.error} onReset={() => edit.reset()} />
    </div>
  );
}
