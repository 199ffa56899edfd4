// The heading of a top-level page (Traces, Runs, Experiments, the admin pages): its title, a
// sentence on what it holds, and the page's main action on the right (below on phones).
import type { ReactNode } from "react";
import { cn } from "./cn";
import { TableSkeleton } from "./data-table";
import { Skeleton } from "./skeleton";

export function PageHeader({
  title,
  description,
  actions,
  nav,
}: {
  title: ReactNode;
  description: ReactNode;
  actions?: ReactNode;
  /** Links to the page's siblings, above the title. */
  nav?: ReactNode;
}) {
  return (
    <div className="flex flex-col gap-4 pb-5 pt-8">
      {nav}
      <div className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-ink">{title}</h1>
          <p className="mt-1 max-w-2xl text-sm text-ink-muted">{description}</p>
        </div>
        {actions}
      </div>
    </div>
  );
}

/** PageHeader's boxes while its page loads, so nothing moves when the page arrives. */
export function PageHeaderSkeleton({ titleWidth, actionWidth }: { titleWidth: string; actionWidth?: string }) {
  return (
    <div className="flex flex-col gap-4 pb-5 pt-8 sm:flex-row sm:items-end sm:justify-between">
      <div>
        <Skeleton className={cn("h-8", titleWidth)} />
        <Skeleton className="mt-2 h-4 w-[32rem] max-w-full" />
      </div>
      {actionWidth ? <Skeleton className={cn("h-9", actionWidth)} /> : null}
    </div>
  );
}

/**
 * A list page while it loads (Traces, Runs, Experiments): the header, one box per filter control
 * (in a row, or stacked as the traces' search and filters are), and the table.
 */
export function ListPageSkeleton({
  label,
  titleWidth,
  actionWidth,
  filterWidths,
  stackFilters = false,
  rows,
}: {
  label: string;
  titleWidth: string;
  actionWidth?: string;
  filterWidths: string[];
  stackFilters?: boolean;
  rows?: number;
}) {
  return (
    <div>
      <PageHeaderSkeleton titleWidth={titleWidth} actionWidth={actionWidth} />
      <div className={cn("flex gap-2 border-b border-line py-3", stackFilters && "flex-col")}>
        {filterWidths.map((width, i) => (
          <Skeleton key={i} className={cn("h-9", width)} />
        ))}
      </div>
      <div className="pt-4">
        <TableSkeleton label={label} rows={rows} />
      </div>
    </div>
  );
}
