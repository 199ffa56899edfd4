// The admin pages' heading and their links (Users, API keys, Retention, Storage, Audit log).
import type { ReactNode } from "react";
import { NavLink } from "@/components/ui/nav-link";
import { PageHeader } from "@/components/ui/page-header";

export function AdminHeader({ title, description, actions }: { title: string; description: ReactNode; actions?: ReactNode }) {
  return (
    <PageHeader
      title={title}
      description={description}
      actions={actions}
      nav={
        <nav aria-label="Administration" className="-ml-2.5 flex flex-wrap gap-1">
          <NavLink href="/settings/users">Users</NavLink>
          <NavLink href="/settings/api-keys">API keys</NavLink>
          <NavLink href="/settings/retention">Retention</NavLink>
          <NavLink href="/settings/storage">Storage</NavLink>
          <NavLink href="/audit">Audit log</NavLink>
        </nav>
      }
    />
  );
}
