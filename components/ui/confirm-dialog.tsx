"use client";
// "Are you sure?" for an action that cannot be taken back (revoking a key, deleting a user): what
// will happen, Cancel, and the action's own button; a server error stays in the dialog.
import type { ReactNode } from "react";
import { Button, type ButtonVariant } from "./button";
import { Dialog, DialogActions, DialogContent, DialogTrigger } from "./dialog";

export function ConfirmDialog({
  open,
  onOpenChange,
  trigger,
  title,
  description,
  confirmLabel,
  pendingLabel,
  variant = "danger",
  pending,
  error,
  onConfirm,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The button that opens it, when it is not opened from elsewhere (a menu item). */
  trigger?: ReactNode;
  title: ReactNode;
  description: ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  variant?: ButtonVariant;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {trigger ? <DialogTrigger asChild>{trigger}</DialogTrigger> : null}
      {open ? (
        <DialogContent title={title} description={description}>
          <DialogActions error={error} onCancel={() => onOpenChange(false)}>
            <Button variant={variant} disabled={pending} onClick={onConfirm}>
              {pending ? pendingLabel : confirmLabel}
            </Button>
          </DialogActions>
        </DialogContent>
      ) : null}
    </Dialog>
  );
}
