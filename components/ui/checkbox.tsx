// A native checkbox in the theme's accent: keyboard, forms and indeterminate state for free.
import { useEffect, useRef, type InputHTMLAttributes } from "react";
import { cn } from "./cn";

export function Checkbox({
  className,
  indeterminate,
  ...props
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type"> & { indeterminate?: boolean }) {
  const ref = useRef<HTMLInputElement>(null);
  // "indeterminate" is a property, not an attribute: it can only be set from script.
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = Boolean(indeterminate);
  }, [indeterminate]);
  return (
    <input
      ref={ref}
      type="checkbox"
      className={cn(
        "size-4 shrink-0 cursor-pointer rounded border-line-strong accent-[var(--color-accent)] disabled:cursor-not-allowed",
        className,
      )}
      {...props}
    />
  );
}
