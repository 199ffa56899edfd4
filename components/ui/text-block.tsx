"use client";
// A long text an agent or a model wrote (a transcript, an output, a prompt), in monospace with its
// line breaks kept; clamped with a "show all" toggle when long, and copyable.
import { ChevronDown } from "lucide-react";
import { useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { formatNumber, plural } from "@/components/ui/format";
import { CopyButton } from "./copy-button";

/** Above this many lines (or characters) a block starts clamped. */
const CLAMP_LINES = 18;
const CLAMP_CHARS = 2_400;

export function TextBlock({
  text,
  label,
  mono = true,
  empty = "Not recorded",
  className,
}: {
  text: string;
  /** What the text is, for the copy button and screen readers: "output", "the system message". */
  label: string;
  mono?: boolean;
  empty?: string;
  className?: string;
}) {
  const id = useId();
  const lines = text.split("\n").length;
  const long = lines > CLAMP_LINES || text.length > CLAMP_CHARS;
  const [open, setOpen] = useState(false);

  if (!text.trim()) return <p className="text-sm italic text-ink-faint">{empty}</p>;
  const pre = (
    <pre
      id={id}
      className={cn(
        "whitespace-pre-wrap break-words py-3 pl-3.5 text-ink",
        mono ? "font-mono text-[12.5px] leading-relaxed" : "font-sans text-sm leading-relaxed",
        long ? "pr-3.5" : "pr-11",
        long && !open && "max-h-80 overflow-hidden",
      )}
    >
      {text}
    </pre>
  );
  if (!long) {
    // Short: the copy button sits in the corner instead of a footer bar.
    return (
      <div className={cn("relative rounded-lg border border-line bg-subtle/40", className)}>
        {pre}
        <div className="absolute right-1 top-1">
          <CopyButton text={text} label={`Copy ${label}`} what={label} compact />
        </div>
      </div>
    );
  }
  return (
    <div className={cn("overflow-hidden rounded-lg border border-line bg-subtle/40", className)}>
      <div className="relative">
        {pre}
        {!open ? (
          <div
            aria-hidden
            className="pointer-events-none absolute inset-x-0 bottom-0 h-16 bg-gradient-to-t from-[#f5f5f8] to-transparent"
          />
        ) : null}
      </div>
      <div className="flex items-center gap-1 border-t border-line bg-surface/60 px-1.5 py-1">
        <Button size="sm" variant="ghost" aria-expanded={open} aria-controls={id} onClick={() => setOpen((value) => !value)}>
          <ChevronDown aria-hidden className={cn("transition-transform", open && "rotate-180")} />
          {open ? "Show less" : `Show all ${plural(lines, "line")}`}
        </Button>
        <span className="ml-auto px-1.5 text-xs tabular-nums text-ink-faint">{formatNumber(text.length)} characters</span>
        <CopyButton text={text} label={`Copy ${label}`} what={label} compact />
      </div>
    </div>
  );
}
