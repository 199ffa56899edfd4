// A word-level diff drawn with <ins> and <del>: the elements say "inserted" and "deleted" to
// assistive technology, and underline / strikethrough carry the meaning without colour.
import { cn } from "./cn";

export interface DiffSegment {
  kind: "same" | "added" | "removed";
  text: string;
}

export function TextDiff({ segments, className }: { segments: readonly DiffSegment[]; className?: string }) {
  return (
    <p className={cn("whitespace-pre-wrap break-words text-sm leading-relaxed text-ink", className)}>
      {segments.map((segment, index) =>
        segment.kind === "added" ? (
          <ins
            key={index}
            className="rounded-[3px] bg-emerald-100/80 text-emerald-950 underline decoration-emerald-600 decoration-2 underline-offset-2"
          >
            {segment.text}
          </ins>
        ) : segment.kind === "removed" ? (
          <del key={index} className="rounded-[3px] bg-rose-100/80 text-rose-950 line-through decoration-rose-600 decoration-2">
            {segment.text}
          </del>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </p>
  );
}
