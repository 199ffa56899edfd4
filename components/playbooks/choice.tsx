// A radio choice drawn as a card with a one-line explanation (native radios: arrow keys for free).
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

export function Choice({
  name,
  value,
  checked,
  onChange,
  title,
  children,
}: {
  name: string;
  value: string;
  checked: boolean;
  onChange: () => void;
  title: ReactNode;
  children?: ReactNode;
}) {
  return (
    <label
      className={cn(
        "flex cursor-pointer items-start gap-2.5 rounded-lg border px-3 py-2.5 transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus",
        checked ? "border-accent/60 bg-accent-soft/60" : "border-line-strong hover:bg-subtle",
      )}
    >
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={onChange}
        className="mt-0.5 size-4 shrink-0 accent-[var(--color-accent)] focus-visible:outline-none"
      />
      <span className="min-w-0">
        <span className="block text-sm font-medium text-ink">{title}</span>
        {children ? <span className="mt-0.5 block text-xs leading-relaxed text-ink-muted">{children}</span> : null}
      </span>
    </label>
  );
}
