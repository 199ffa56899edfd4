// The table of an admin page (users, API keys, audit entries): a card with a heading per column.
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

export function AdminTable({
  label,
  columns,
  withActions,
  dimmed,
  children,
}: {
  /** The table's accessible name. */
  label: string;
  columns: string[];
  /** A last column of row actions, its heading for screen readers only. */
  withActions?: boolean;
  /** Rows from the previous filters while the new ones load. */
  dimmed?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={cn("overflow-x-auto rounded-card border border-line bg-surface shadow-card", dimmed && "opacity-60")}>
      <table className="w-full text-sm" aria-label={label}>
        <thead className="border-b border-line bg-subtle/50 text-left text-xs text-ink-faint">
          <tr>
            {columns.map((column) => (
              <th key={column} className="px-4 py-2.5 font-medium">
                {column}
              </th>
            ))}
            {withActions ? (
              <th className="px-4 py-2.5 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody className="divide-y divide-line">{children}</tbody>
      </table>
    </div>
  );
}
