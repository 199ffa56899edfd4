"use client";
// A menu of actions or links on Radix DropdownMenu (arrow keys, typeahead, Escape).
import { DropdownMenu as RadixMenu } from "radix-ui";
import type { ComponentProps, ReactNode } from "react";
import { cn } from "./cn";

export const DropdownMenu = RadixMenu.Root;
export const DropdownMenuTrigger = RadixMenu.Trigger;

export function DropdownMenuContent({
  children,
  align = "end",
  className,
}: {
  children: ReactNode;
  align?: "start" | "center" | "end";
  className?: string;
}) {
  return (
    <RadixMenu.Portal>
      <RadixMenu.Content
        align={align}
        sideOffset={6}
        className={cn("z-50 min-w-56 overflow-hidden rounded-lg border border-line bg-surface p-1 shadow-pop animate-pop-in", className)}
      >
        {children}
      </RadixMenu.Content>
    </RadixMenu.Portal>
  );
}

export function DropdownMenuLabel({ children }: { children: ReactNode }) {
  return <RadixMenu.Label className="px-2 pb-1 pt-1.5 text-xs font-medium text-ink-faint">{children}</RadixMenu.Label>;
}

export function DropdownMenuItem({ className, ...props }: ComponentProps<typeof RadixMenu.Item>) {
  return (
    <RadixMenu.Item
      className={cn(
        "flex cursor-default select-none items-center gap-2.5 rounded-md px-2 py-1.5 text-sm text-ink outline-none",
        "data-[highlighted]:bg-subtle data-[disabled]:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0 [&_svg]:text-ink-faint",
        className,
      )}
      {...props}
    />
  );
}

export function DropdownMenuSeparator() {
  return <RadixMenu.Separator className="-mx-1 my-1 h-px bg-line" />;
}
