"use client";
// Roll back to a version: a new version that makes the playbook look as it did then. The versions
// in between stay in the history, and bullets added since are archived, never deleted.
import { useMutation } from "@tanstack/react-query";
import { Undo2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { errorMessage } from "@/components/ui/errors";
import { plural } from "@/components/ui/format";
import { historyHref } from "@/components/ui/routes";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { useUndoToast } from "@/components/shared/use-undo";

export function RollbackButton({
  playbookId,
  version,
  currentVersion,
  size = "sm",
  variant = "secondary",
}: {
  playbookId: string;
  version: number;
  currentVersion: number;
  size?: "sm" | "md";
  variant?: "secondary" | "ghost";
}) {
  const [open, setOpen] = useState(false);
  if (version >= currentVersion) return null;
  return (
    <>
      <RoleGate action="playbook.rollback">
        <Button size={size} variant={variant} onClick={() => setOpen(true)}>
          <Undo2 aria-hidden /> Roll back to v{version}
        </Button>
      </RoleGate>
      {open ? (
        <RollbackDialog playbookId={playbookId} version={version} currentVersion={currentVersion} onClose={() => setOpen(false)} />
      ) : null}
    </>
  );
}

function RollbackDialog({
  playbookId,
  version,
  currentVersion,
  onClose,
}: {
  playbookId: string;
  version: number;
  currentVersion: number;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const invalidate = useInvalidateCuration();
  const offerUndo = useUndoToast();
  const mutation = useMutation(
    trpc.history.rollback.mutationOptions({
      onSuccess: async (result) => {
        offerUndo(result.message, result.deltaId, {
          description: result.bulletsArchived
            ? `${plural(result.bulletsArchived, "bullet")} added since v${version} archived (restorable).`
            : undefined,
          onUndone: (undone) => {
            if (undone.version !== null) router.push(historyHref(playbookId, { from: undone.version - 1, to: undone.version }));
          },
        });
        await invalidate();
        onClose();
        router.push(historyHref(playbookId, { from: result.version - 1, to: result.version }));
      },
    }),
  );
  return (
    <ReasonDialog
      open
      onOpenChange={(next) => (next ? undefined : onClose())}
      title={`Roll back to version ${version}`}
      description={`Writes version ${currentVersion + 1}, in which the playbook reads as it did at version ${version}.`}
      placeholder="e.g. The curator's last run made the agent worse on date tasks"
      confirmLabel={`Roll back to v${version}`}
      pendingLabel="Rolling back…"
      variant="danger"
      pending={mutation.isPending}
      error={mutation.isError ? errorMessage(mutation.error) : null}
      onConfirm={(reason) => mutation.mutate({ playbookId, version, reason, expectedVersion: currentVersion })}
    >
      <ul className="list-disc space-y-1 pl-5 text-sm text-ink-muted">
        <li>
          Versions {version + 1}–{currentVersion} stay in the history; you can roll forward again the same way.
        </li>
        <li>Bullets added after version {version} are archived, not deleted: they can be restored.</li>
      </ul>
    </ReasonDialog>
  );
}
