// The frame of the sign-in, first-admin and invite pages: a narrow card under the brand.
import type { ReactNode } from "react";

export function AuthCard({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-5 py-12 sm:py-20">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-ink">{title}</h1>
        {description ? <div className="mt-1.5 text-sm text-ink-muted">{description}</div> : null}
      </div>
      <div className="rounded-card border border-line bg-surface p-5 shadow-card sm:p-6">{children}</div>
    </div>
  );
}

/** Where to go after signing in: a path of this site only (never another origin). */
export function safeNext(next: string | null | undefined): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/playbooks";
}

/**
 * Loads a page afresh after the session changed (signed in, signed out): every server component
 * renders again as the new person, and nothing cached for the previous one stays in the tab.
 */
export function reloadAt(path: string): void {
  window.location.assign(path);
}
