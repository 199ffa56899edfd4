"use client";
// A chart's or a toolbar's few exclusive choices as a row of pressed buttons.
import { cn } from "@/components/ui/cn";

/** Two or three exclusive choices as pressed buttons (a chart's "by type / by origin"). */
export function Segmented<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
}) {
  return (
    <div role="group" aria-label={label} className="inline-flex rounded-lg bg-subtle p-0.5">
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          aria-pressed={option.value === value}
          onClick={() => onChange(option.value)}
          className={cn(
            "inline-flex h-7 items-center rounded-md px-2.5 text-xs font-medium transition-colors",
            option.value === value ? "bg-surface text-ink shadow-sm" : "text-ink-muted hover:text-ink",
          )}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}
