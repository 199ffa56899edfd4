import type { ReactNode } from "react";

export function Kbd({ children }: { children: ReactNode }) {
  return (
    <kbd className="inline-flex h-5 min-w-5 items-center justify-center rounded border border-line-strong bg-surface px-1 font-sans text-[11px] font-medium text-ink-faint shadow-[inset_0_-1px_0_var(--color-line)]">
      {children}
    </kbd>
  );
}

/** "⌘/Ctrl ↵ save · Esc cancel" under an inline editor; hidden on phones, which have neither key. */
export function SubmitHint({ action = "save" }: { action?: string }) {
  return (
    <span className="mr-auto hidden items-center gap-1 text-xs text-ink-faint sm:flex">
      <Kbd>⌘/Ctrl</Kbd>
      <Kbd>↵</Kbd> {action} · <Kbd>Esc</Kbd> cancel
    </span>
  );
}
