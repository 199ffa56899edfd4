"use client";
// A text filter that waits for a pause (250 ms by default) before it touches the URL (and so the
// server), and keeps its text when the URL catches up. With `slashFocus`, "/" focuses it from anywhere.
import { Search, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { cn } from "@/components/ui/cn";
import { Kbd } from "@/components/ui/kbd";

export function DebouncedInput({
  value,
  onCommit,
  label,
  placeholder,
  search,
  slashFocus,
  className,
  delayMs = 250,
  clearLabel = `Clear ${label.toLowerCase()}`,
}: {
  value: string;
  onCommit: (value: string) => void;
  label: string;
  placeholder?: string;
  /** A search box: magnifier icon and role searchbox. */
  search?: boolean;
  slashFocus?: boolean;
  className?: string;
  delayMs?: number;
  clearLabel?: string;
}) {
  const [draft, setDraft] = useState(value);
  const [seen, setSeen] = useState(value);
  const inputRef = useRef<HTMLInputElement>(null);

  // Back button or "Reset" changed the URL: show what it says now (state adjusted during render).
  if (value !== seen) {
    setSeen(value);
    if (value !== draft.trim()) setDraft(value);
  }

  const commit = useRef(onCommit);
  useEffect(() => {
    commit.current = onCommit;
  });

  useEffect(() => {
    if (draft.trim() === value) return;
    const timer = setTimeout(() => commit.current(draft), delayMs);
    return () => clearTimeout(timer);
  }, [draft, value, delayMs]);

  useEffect(() => {
    if (!slashFocus) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "/" || event.metaKey || event.ctrlKey || event.altKey) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable=true], [role=dialog]")) return;
      event.preventDefault();
      inputRef.current?.focus();
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [slashFocus]);

  return (
    <div className={cn("relative", className)}>
      {search ? (
        <Search aria-hidden className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-ink-faint" />
      ) : null}
      <input
        ref={inputRef}
        type={search ? "search" : "text"}
        aria-label={label}
        placeholder={placeholder}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && draft) {
            event.preventDefault();
            setDraft("");
          }
        }}
        className={cn(
          "h-9 w-full rounded-lg border border-line-strong bg-surface pr-9 text-sm text-ink shadow-xs placeholder:text-ink-faint",
          "focus-visible:border-accent focus-visible:outline-2 focus-visible:outline-offset-0 [&::-webkit-search-cancel-button]:hidden",
          search ? "pl-9" : "pl-3",
        )}
      />
      <div className="absolute right-2 top-1/2 flex -translate-y-1/2 items-center">
        {draft ? (
          <button
            type="button"
            aria-label={clearLabel}
            onClick={() => {
              setDraft("");
              inputRef.current?.focus();
            }}
            className="inline-flex size-6 items-center justify-center rounded-md text-ink-faint hover:bg-subtle hover:text-ink"
          >
            <X aria-hidden className="size-3.5" />
          </button>
        ) : slashFocus ? (
          <span className="hidden sm:inline-flex" aria-hidden>
            <Kbd>/</Kbd>
          </span>
        ) : null}
      </div>
    </div>
  );
}
