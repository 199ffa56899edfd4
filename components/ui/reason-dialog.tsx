"use client";
// A confirm dialog that asks why: rejecting a delta, rolling back, archiving. The reason is
// required (it goes into the history), ⌘/Ctrl+Enter confirms, and a server error stays in the
// dialog next to the reason so nothing typed is lost.
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { Button, type ButtonVariant } from "./button";
import { Dialog, DialogActions, DialogContent } from "./dialog";
import { Field, fieldAria, Textarea } from "./input";

export function ReasonDialog({
  open,
  onOpenChange,
  title,
  description,
  label = "Reason",
  hint,
  placeholder,
  confirmLabel,
  pendingLabel,
  variant = "primary",
  pending,
  error,
  onConfirm,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  label?: string;
  hint?: ReactNode;
  placeholder?: string;
  confirmLabel: string;
  pendingLabel?: string;
  variant?: ButtonVariant;
  pending?: boolean;
  /** A sentence from the server, shown above the buttons. */
  error?: string | null;
  onConfirm: (reason: string) => void;
  /** Extra context between the description and the reason (what will happen). */
  children?: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? (
        <DialogContent title={title} description={description}>
          <ReasonForm
            label={label}
            hint={hint}
            placeholder={placeholder}
            confirmLabel={confirmLabel}
            pendingLabel={pendingLabel}
            variant={variant}
            pending={pending}
            error={error}
            onConfirm={onConfirm}
            onCancel={() => onOpenChange(false)}
          >
            {children}
          </ReasonForm>
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function ReasonForm({
  label,
  hint,
  placeholder,
  confirmLabel,
  pendingLabel,
  variant,
  pending,
  error,
  onConfirm,
  onCancel,
  children,
}: {
  label: string;
  hint?: ReactNode;
  placeholder?: string;
  confirmLabel: string;
  pendingLabel?: string;
  variant: ButtonVariant;
  pending?: boolean;
  error?: string | null;
  onConfirm: (reason: string) => void;
  onCancel: () => void;
  children?: ReactNode;
}) {
  const id = useId();
  const [reason, setReason] = useState("");
  const [missing, setMissing] = useState(false);

  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!reason.trim()) {
      setMissing(true);
      return;
    }
    onConfirm(reason.trim());
  }

  const fieldError = missing && !reason.trim() ? "Say why: the reason is recorded in the history." : undefined;
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      {children}
      <Field id={id} label={label} hint={hint} error={fieldError}>
        <Textarea
          {...fieldAria(id, fieldError, Boolean(hint))}
          autoFocus
          rows={3}
          value={reason}
          placeholder={placeholder}
          onChange={(event) => setReason(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) submit();
          }}
        />
      </Field>
      <DialogActions error={error} onCancel={onCancel}>
        <Button type="submit" variant={variant} disabled={pending}>
          {pending ? (pendingLabel ?? `${confirmLabel}…`) : confirmLabel}
        </Button>
      </DialogActions>
    </form>
  );
}
