"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "./cn";

/** A top-bar link that marks itself current on its page and the pages below it. */
export function NavLink({ href, children }: { href: string; children: ReactNode }) {
  const pathname = usePathname();
  const current = pathname === href || pathname.startsWith(`${href}/`);
  return (
    <Link
      href={href}
      aria-current={current ? "page" : undefined}
      className={cn(
        "inline-flex h-8 shrink-0 items-center whitespace-nowrap rounded-md px-2 text-sm font-medium transition-colors sm:px-2.5",
        current ? "bg-subtle text-ink" : "text-ink-muted hover:bg-subtle hover:text-ink",
      )}
    >
      {children}
    </Link>
  );
}
