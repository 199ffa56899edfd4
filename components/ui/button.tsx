import { Slot } from "radix-ui";
import type { ButtonHTMLAttributes, ReactNode, Ref } from "react";
import { cn } from "./cn";

const VARIANTS = {
  primary: "bg-accent text-white shadow-sm hover:bg-accent-hover disabled:bg-accent/60",
  secondary: "border border-line-strong bg-surface text-ink shadow-sm hover:bg-subtle disabled:text-ink-faint",
  ghost: "text-ink-muted hover:bg-subtle hover:text-ink disabled:text-ink-faint",
  danger: "bg-danger text-white shadow-sm hover:bg-danger/90",
} as const;

const SIZES = {
  sm: "h-8 gap-1.5 px-2.5 text-[13px]",
  md: "h-9 gap-2 px-3.5 text-sm",
  icon: "size-8 justify-center",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: keyof typeof SIZES;
  /** Render the child element (a link) with button styling. */
  asChild?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

export function buttonClass(variant: ButtonVariant = "secondary", size: keyof typeof SIZES = "md"): string {
  return cn(
    "inline-flex shrink-0 select-none items-center justify-center whitespace-nowrap rounded-lg font-medium",
    "transition-colors disabled:cursor-not-allowed [&_svg]:size-4 [&_svg]:shrink-0",
    VARIANTS[variant],
    SIZES[size],
  );
}

export function Button({ variant, size, asChild, className, type, ...props }: ButtonProps) {
  const Comp = asChild ? Slot.Root : "button";
  return (
    <Comp
      // A bare <button> inside a form would submit it; say so explicitly where that is wanted.
      type={asChild ? undefined : (type ?? "button")}
      className={cn(buttonClass(variant, size), className)}
      {...props}
    />
  );
}

/** A form's submit button: disabled while its mutation runs, and saying what it is doing ("Saving…"). */
export function SubmitButton({
  pending,
  pendingLabel,
  disabled,
  children,
  ...props
}: Omit<ButtonProps, "type"> & { pending: boolean; pendingLabel: ReactNode }) {
  return (
    <Button type="submit" variant="primary" disabled={pending || disabled} {...props}>
      {pending ? pendingLabel : children}
    </Button>
  );
}
