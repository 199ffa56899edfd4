"use client";
// Modal dialog and side sheet on Radix Dialog: focus trap, Escape to close, labelled by its title.
import { X } from "lucide-react";
import { Dialog as RadixDialog } from "radix-ui";
import { useState, type ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";
import { ErrorNotice } from "./notice";

export const Dialog = RadixDialog.Root;
export const DialogTrigger = RadixDialog.Trigger;

/** Radix wires aria-describedby to the Description itself; without one, say so explicitly (silences its warning). */
function noDescription(description: ReactNode): { "aria-describedby"?: undefined } {
  return description ? {} : { "aria-describedby": undefined };
}

function Overlay() {
  return <RadixDialog.Overlay className="fixed inset-0 z-40 bg-ink/30 backdrop-blur-[1px] animate-fade-in" />;
}

function CloseButton() {
  return (
    <RadixDialog.Close
      aria-label="Close"
      className="inline-flex size-8 shrink-0 items-center justify-center rounded-lg text-ink-faint transition-colors hover:bg-subtle hover:text-ink"
    >
      <X aria-hidden className="size-4" />
    </RadixDialog.Close>
  );
}

function Header({ title, description, actions }: { title: ReactNode; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="flex items-start gap-3">
      <div className="min-w-0 flex-1">
        <RadixDialog.Title className="text-base font-semibold tracking-tight text-ink">{title}</RadixDialog.Title>
        {description ? <RadixDialog.Description className="mt-1 text-sm text-ink-muted">{description}</RadixDialog.Description> : null}
      </div>
      {actions}
      <CloseButton />
    </div>
  );
}

/**
 * An inline editor inside a dialog or sheet (marked data-own-escape) uses Escape to cancel its
 * edit; the surrounding panel must then stay open rather than close over unsaved text.
 */
function keepOpenForOwnEscape(event: KeyboardEvent) {
  if (event.target instanceof Element && event.target.closest("[data-own-escape]")) event.preventDefault();
}

/** A centred dialog with a title bar and a scrolling body. */
export function DialogContent({
  title,
  description,
  children,
  className,
}: {
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
}) {
  return (
    <RadixDialog.Portal>
      <Overlay />
      <RadixDialog.Content
        {...noDescription(description)}
        onEscapeKeyDown={keepOpenForOwnEscape}
        className={cn(
          "fixed left-1/2 top-[max(0.75rem,6vh)] z-50 flex max-h-[calc(100dvh-2*max(0.75rem,6vh))] w-[calc(100vw-1.5rem)] max-w-lg -translate-x-1/2 flex-col",
          "rounded-card border border-line bg-surface shadow-pop animate-pop-in focus:outline-none",
          className,
        )}
      >
        <div className="border-b border-line px-5 py-4">
          <Header title={title} description={description} />
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto px-5 py-4">{children}</div>
      </RadixDialog.Content>
    </RadixDialog.Portal>
  );
}

/** A panel that slides in from the right, full width on phones. */
export function SheetContent({
  title,
  description,
  actions,
  children,
  onCloseAutoFocus,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  /** Where focus goes when the sheet closes; call event.preventDefault() after moving it yourself. */
  onCloseAutoFocus?: (event: Event) => void;
}) {
  return (
    <RadixDialog.Portal>
      <Overlay />
      <RadixDialog.Content
        {...noDescription(description)}
        // Focus the panel itself rather than its first button: a ring on "Copy id" the moment a
        // shared link opens reads as a selection. Tab still reaches every control.
        onOpenAutoFocus={(event) => {
          event.preventDefault();
          if (event.currentTarget instanceof HTMLElement) event.currentTarget.focus();
        }}
        onEscapeKeyDown={keepOpenForOwnEscape}
        onCloseAutoFocus={onCloseAutoFocus}
        className={cn(
          "fixed inset-y-0 right-0 z-50 flex w-full max-w-xl flex-col border-l border-line bg-surface shadow-pop",
          "animate-sheet-in focus:outline-none",
        )}
      >
        <div className="border-b border-line px-5 py-4">
          <Header title={title} description={description} actions={actions} />
        </div>
        <div className="min-h-0 flex-1 overflow-y-auto px-5 py-5">{children}</div>
      </RadixDialog.Content>
    </RadixDialog.Portal>
  );
}

/** Footer row for dialog actions, right-aligned, stacked on phones. */
export function DialogFooter({ children }: { children: ReactNode }) {
  return <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{children}</div>;
}

/**
 * The end of a dialog that does something: the server's error if the last try failed (the dialog
 * stays open, nothing typed is lost), then Cancel and the dialog's own button(s).
 */
export function DialogActions({ error, onCancel, children }: { error?: unknown; onCancel: () => void; children: ReactNode }) {
  return (
    <>
      <ErrorNotice error={error} />
      <DialogFooter>
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        {children}
      </DialogFooter>
    </>
  );
}

/**
 * A button and the dialog it opens. The body mounts only while open, so each opening starts from a
 * blank form; it gets `close` for its Cancel and for when it is done.
 */
export function DialogButton({
  button,
  title,
  description,
  className,
  onOpenChange,
  children,
}: {
  button: ReactNode;
  title: ReactNode;
  description?: ReactNode;
  /** Of the dialog (a wider one: max-w-xl). */
  className?: string;
  /** For state kept outside the body (a title that changes), to reset it on close. */
  onOpenChange?: (open: boolean) => void;
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const change = (next: boolean) => {
    setOpen(next);
    onOpenChange?.(next);
  };
  return (
    <Dialog open={open} onOpenChange={change}>
      <DialogTrigger asChild>{button}</DialogTrigger>
      {open ? (
        <DialogContent title={title} description={description} className={className}>
          {children(() => change(false))}
        </DialogContent>
      ) : null}
    </Dialog>
  );
}
