// The heading of a top-level page (Traces, Runs, Experiments, the admin pages): its title, a
// sentence on what it holds, and the page's main action on the right (below on phones).
import type { ReactNode } from "react";

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
