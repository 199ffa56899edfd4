import type { Metadata, Viewport } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { LocalModeBanner } from "@/components/auth/local-mode-banner";
import { SessionProvider } from "@/components/auth/session-context";
import { SessionWatch } from "@/components/auth/session-watch";
import { UserMenu } from "@/components/auth/user-menu";
import { ReviewNavLink } from "@/components/deltas/review-nav-link";
import { NavLink } from "@/components/ui/nav-link";
import { Toaster } from "@/components/ui/toaster";
import { TRPCReactProvider } from "@/components/trpc/client";
import type { SessionState } from "@/server/auth/schemas";
import { getSession } from "@/server/trpc/rsc";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "ACE Studio", template: "%s · ACE Studio" },
  description: "Curate the playbooks of self-improving LLM agents (Agentic Context Engineering).",
  // The brand mark inline, so there is no extra file to serve (and no 404 for /favicon.ico).
  icons: {
    icon: `data:image/svg+xml,${encodeURIComponent(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="6" fill="#4f46e5"/><path d="M6 8.5h12M6 12h9M6 15.5h6" stroke="white" stroke-width="2" stroke-linecap="round"/></svg>',
    )}`,
  },
};

export const viewport: Viewport = {
  themeColor: "#ffffff",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await getSession();
  return (
    <html lang="en">
      <body className="min-h-dvh">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-[100] focus:rounded-lg focus:bg-surface focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-ink focus:shadow-pop"
        >
          Skip to content
        </a>
        <TRPCReactProvider>
          <SessionProvider value={session}>
            <TopBar session={session} />
            {session.localMode ? <LocalModeBanner /> : null}
            <SessionWatch />
            <main id="main" tabIndex={-1} className="mx-auto w-full max-w-[1440px] px-4 focus:outline-none sm:px-6 lg:px-8">
              {children}
            </main>
            <Toaster />
          </SessionProvider>
        </TRPCReactProvider>
      </body>
    </html>
  );
}

function TopBar({ session }: { session: SessionState }) {
  return (
    // Opaque: rows scrolling under a translucent bar made both hard to read.
    <header className="sticky top-0 z-30 h-14 border-b border-line bg-surface">
      <div className="mx-auto flex h-full max-w-[1440px] items-center gap-3 px-4 sm:gap-6 sm:px-6 lg:px-8">
        <Link
          href="/playbooks"
          className="flex shrink-0 items-center gap-2 whitespace-nowrap rounded-md text-[15px] font-semibold tracking-tight text-ink"
        >
          <BrandMark />
          {/* On a phone the mark alone: the room goes to the navigation. */}
          <span className="sr-only sm:not-sr-only">ACE Studio</span>
        </Link>
        {session.identity.kind === "anonymous" ? null : (
          <>
            <nav aria-label="Main" className="flex min-w-0 flex-1 items-center gap-0.5 overflow-x-auto sm:flex-none sm:gap-1">
              <NavLink href="/playbooks">Playbooks</NavLink>
              <ReviewNavLink />
              <NavLink href="/traces">Traces</NavLink>
              <NavLink href="/runs">Runs</NavLink>
              <NavLink href="/experiments">Experiments</NavLink>
            </nav>
            <div className="ml-auto shrink-0">
              <UserMenu />
            </div>
          </>
        )}
      </div>
    </header>
  );
}

/** Three stacked context layers: the playbook the agent reads, refined run after run. */
function BrandMark() {
  return (
    <svg aria-hidden viewBox="0 0 24 24" className="size-6">
      <rect width="24" height="24" rx="6" fill="var(--color-accent)" />
      <path d="M6 8.5h12M6 12h9M6 15.5h6" stroke="white" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}
