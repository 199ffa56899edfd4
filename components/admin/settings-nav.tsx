// The admin pages' heading and their links (Users, API keys, Audit log).
import type { ReactNode } from "react";
import { NavLink } from "@/components/ui/nav-link";

export function AdminHeader({ title, description, actions }: { title: string; description: ReactNode; actions?: ReactNode }) {
  return (
    <div className="flex flex-col gap-4 pb-5 pt-8">
      <nav aria-label="Administration" className="-ml-2.5 flex flex-wrap gap-1">
        <NavLink href="/settings/users">Users</NavLink>
        <NavLink href="/settings/api-keys">API keys</NavLink>
        <NavLink href="/audit">Audit log</NavLink>
      </nav>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-ink">{title}</h1>
          <p className="mt-1 max-w-2xl text-sm text-ink-muted">{description}</p>
        </div>
        {actions}
      </div>
    </div>
  );
}
