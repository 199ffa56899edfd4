// Building blocks of the trace and run pages: a titled card section, a definition list row, the
// breadcrumb. Kept together so both pages look alike.
import { ChevronRight } from "lucide-react";
import Link from "next/link";
import { useId, type ReactNode } from "react";
import { cn } from "@/components/ui/cn";
import { Skeleton } from "@/components/ui/skeleton";

export function DetailSection({
  title,
  count,
  actions,
  children,
  className,
  flush,
}: {
  title: string;
  count?: number;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  /** The body draws its own padding (a list with dividers). */
  flush?: boolean;
}) {
  const id = useId();
  return (
    <section aria-labelledby={id} className={cn("overflow-hidden rounded-card border border-line bg-surface shadow-card", className)}>
      <header className="flex min-h-12 items-center gap-3 border-b border-line px-4 py-2.5 sm:px-5">
        <h2 id={id} className="text-sm font-semibold text-ink">
          {title}
          {count !== undefined ? <span className="ml-1.5 font-normal tabular-nums text-ink-faint">({count})</span> : null}
        </h2>
        {actions ? <div className="ml-auto flex items-center gap-1.5">{actions}</div> : null}
      </header>
      <div className={flush ? undefined : "px-4 py-4 sm:px-5"}>{children}</div>
    </section>
  );
}

export function Facts({ children, className }: { children: ReactNode; className?: string }) {
  return <dl className={cn("grid grid-cols-[7.5rem_minmax(0,1fr)] gap-x-4 gap-y-2.5 text-[13px]", className)}>{children}</dl>;
}

export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="font-medium text-ink-faint">{term}</dt>
      <dd className="min-w-0 break-words text-ink">{children}</dd>
    </>
  );
}

export function Breadcrumb({ items }: { items: { label: string; href?: string }[] }) {
  return (
    <nav aria-label="Breadcrumb" className="mb-2 flex min-w-0 items-center gap-1 text-xs text-ink-faint">
      {items.map((item, index) => (
        <span key={index} className="flex min-w-0 items-center gap-1">
          {index > 0 ? <ChevronRight aria-hidden className="size-3 shrink-0" /> : null}
          {item.href ? (
            <Link href={item.href} className="truncate rounded-sm hover:text-ink">
              {item.label}
            </Link>
          ) : (
            <span aria-current="page" className="truncate">
              {item.label}
            </span>
          )}
        </span>
      ))}
    </nav>
  );
}

/** A value shown as JSON: objects pretty-printed, strings as they are. */
export function jsonText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A detail page's breadcrumb, title and the line under it while it loads (the widths are the page's). */
export function DetailHeadingSkeleton({
  crumbWidth,
  titleWidth,
  lineWidth = "w-96",
}: {
  crumbWidth: string;
  titleWidth: string;
  lineWidth?: string;
}) {
  return (
    <div>
      <Skeleton className={cn("mb-2 h-3", crumbWidth)} />
      <Skeleton className={cn("h-8 max-w-full", titleWidth)} />
      <Skeleton className={cn("mt-2.5 h-4 max-w-full", lineWidth)} />
    </div>
  );
}
