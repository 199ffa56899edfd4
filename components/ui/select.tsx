"use client";
// A labelled Radix Select for a short list of options, and FilterSelect, whose first option means
// "no filter" (null). Radix forbids "" as an item value, so FilterSelect keeps a sentinel inside.
import { Check, ChevronDown } from "lucide-react";
import { Select as RadixSelect } from "radix-ui";
import type { ReactNode } from "react";
import { cn } from "./cn";

export interface SelectOption<T extends string> {
  value: T;
  label: ReactNode;
  /** Right-aligned detail, e.g. a count. */
  hint?: ReactNode;
  /** Plain text for the closed trigger when label is rich. */
  textValue?: string;
}

interface SelectFrame {
  id?: string;
  /** Accessible name when there is no visible <label htmlFor={id}>. */
  label?: string;
  placeholder?: string;
  /** Muted text before the value inside the trigger, e.g. "Sort". */
  prefix?: string;
  className?: string;
  disabled?: boolean;
}

/** The value FilterSelect gives its "no filter" option; never a real option's value. */
const NO_FILTER = "__no-filter__";

/** A Select for a list filter: `any` is the first option and stands for null (no filter). */
export function FilterSelect<T extends string>({
  value,
  onValueChange,
  any,
  options,
  ...frame
}: SelectFrame & {
  value: T | null;
  onValueChange: (value: T | null) => void;
  /** The "no filter" option, e.g. { label: "Any" }. */
  any: Omit<SelectOption<string>, "value">;
  options: readonly SelectOption<T>[];
}) {
  return (
    <Select<T | typeof NO_FILTER>
      {...frame}
      value={value ?? NO_FILTER}
      onValueChange={(chosen) => onValueChange(chosen === NO_FILTER ? null : (chosen as T))}
      options={[{ ...any, value: NO_FILTER }, ...options]}
    />
  );
}

export function Select<T extends string>({
  id,
  value,
  onValueChange,
  options,
  label,
  placeholder,
  prefix,
  className,
  disabled,
}: SelectFrame & {
  value: T;
  onValueChange: (value: T) => void;
  options: readonly SelectOption<T>[];
}) {
  return (
    <RadixSelect.Root value={value} onValueChange={(v) => onValueChange(v as T)} disabled={disabled}>
      <RadixSelect.Trigger
        id={id}
        aria-label={label}
        className={cn(
          "inline-flex h-9 min-w-0 items-center justify-between gap-2 rounded-lg border border-line-strong bg-surface px-3",
          "text-sm text-ink shadow-xs transition-colors hover:bg-subtle data-[placeholder]:text-ink-faint",
          "disabled:cursor-not-allowed disabled:opacity-60",
          className,
        )}
      >
        <span className="truncate">
          {prefix ? <span className="mr-1 text-ink-faint">{prefix}</span> : null}
          <RadixSelect.Value placeholder={placeholder} />
        </span>
        <RadixSelect.Icon>
          <ChevronDown aria-hidden className="size-4 shrink-0 text-ink-faint" />
        </RadixSelect.Icon>
      </RadixSelect.Trigger>
      <RadixSelect.Portal>
        <RadixSelect.Content
          position="popper"
          sideOffset={4}
          className={cn(
            "z-50 max-h-[min(24rem,var(--radix-select-content-available-height))] min-w-[var(--radix-select-trigger-width)]",
            "overflow-hidden rounded-lg border border-line bg-surface shadow-pop animate-pop-in",
          )}
        >
          <RadixSelect.Viewport className="p-1">
            {options.map((option) => (
              <RadixSelect.Item
                key={option.value}
                value={option.value}
                textValue={option.textValue}
                className={cn(
                  "relative flex cursor-default select-none items-center gap-3 rounded-md py-1.5 pl-7 pr-2 text-sm text-ink outline-none",
                  "data-[highlighted]:bg-subtle data-[state=checked]:font-medium",
                )}
              >
                <RadixSelect.ItemIndicator className="absolute left-2 inline-flex">
                  <Check aria-hidden className="size-3.5 text-accent" />
                </RadixSelect.ItemIndicator>
                <RadixSelect.ItemText>{option.label}</RadixSelect.ItemText>
                {option.hint !== undefined ? <span className="ml-auto pl-2 text-xs tabular-nums text-ink-faint">{option.hint}</span> : null}
              </RadixSelect.Item>
            ))}
          </RadixSelect.Viewport>
        </RadixSelect.Content>
      </RadixSelect.Portal>
    </RadixSelect.Root>
  );
}
