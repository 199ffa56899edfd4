"use client";
// What every page of a playbook shows on top: the header and the tabs. It reads the playbook from
// the query cache, so a new version (an edit, an approval) shows here the moment it lands.
import { useQuery, useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";
import { Skeleton } from "@/components/ui/skeleton";
import { formatNumber } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { pendingCountInput } from "@/components/shared/review-url";
import { PlaybookHeader } from "./playbook-header";
import { DetailHeadingSkeleton } from "@/components/ui/detail-parts";

/** `experiments`: the running experiments under the header, given by the layout (it owns that domain's part). */
export function PlaybookChrome({ playbookId, experiments }: { playbookId: string; experiments: ReactNode }) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const onBullets = usePathname() === `/playbooks/${playbookId}`;
  return (
    <>
      {onBullets ? <SkipToBullets /> : null}
      <PlaybookHeader playbook={playbook} />
      {experiments}
      <PlaybookTabs playbookId={playbookId} />
    </>
  );
}

/**
 * The first stop after the app's "Skip to content": straight to the first bullet, past the header,
 * the tabs, the summary, the sections and the toolbar (about 49 Tab presses otherwise).
 */
function SkipToBullets() {
  return (
    <a
      href="#bullets"
      onClick={(event) => {
        const first = document.querySelector<HTMLElement>("#bullets a[data-row-link]");
        if (!first) return;
        event.preventDefault();
        first.focus();
      }}
      className="sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-[100] focus:rounded-lg focus:bg-surface focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-ink focus:shadow-pop"
    >
      Skip to the bullets
    </a>
  );
}

function PlaybookTabs({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const pathname = usePathname();
  const pending = useQuery(trpc.delta.list.queryOptions(pendingCountInput(playbookId))).data?.total ?? null;
  const base = `/playbooks/${playbookId}`;
  const tabs = [
    { href: base, label: "Bullets", current: pathname === base },
    { href: `${base}/review`, label: "Review", current: pathname.startsWith(`${base}/review`), count: pending },
    { href: `${base}/history`, label: "History", current: pathname.startsWith(`${base}/history`) },
    { href: `${base}/evolution`, label: "Evolution", current: pathname.startsWith(`${base}/evolution`) },
    { href: `${base}/runs`, label: "Runs", current: pathname.startsWith(`${base}/runs`) },
    { href: `${base}/settings`, label: "Settings", current: pathname.startsWith(`${base}/settings`) },
  ];
  return (
    <nav aria-label="Playbook" className="-mx-4 mb-5 overflow-x-auto border-b border-line px-4 sm:mx-0 sm:px-0">
      <ul className="flex min-w-max items-center gap-1">
        {tabs.map((tab) => (
          <li key={tab.href}>
            <Link
              href={tab.href}
              aria-current={tab.current ? "page" : undefined}
              className={cn(
                "relative -mb-px inline-flex h-10 items-center gap-1.5 border-b-2 px-3 text-sm font-medium transition-colors",
                tab.current ? "border-accent text-ink" : "border-transparent text-ink-muted hover:border-line-strong hover:text-ink",
              )}
            >
              {tab.label}
              {tab.count !== undefined && tab.count !== null && tab.count > 0 ? (
                <span
                  className={cn(
                    "inline-flex h-5 min-w-5 items-center justify-center rounded-full px-1.5 text-xs tabular-nums",
                    tab.current ? "bg-accent text-white" : "bg-accent-soft text-accent-ink",
                  )}
                >
                  {formatNumber(tab.count)}
                  <span className="sr-only"> pending</span>
                </span>
              ) : null}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Box for box the header and tabs, so nothing moves when they stream in. */
export function PlaybookChromeSkeleton() {
  return (
    <div>
      <div className="flex flex-col gap-4 pb-5 pt-6 md:flex-row md:items-start md:justify-between">
        <DetailHeadingSkeleton crumbWidth="w-32" titleWidth="w-72" />
        <div className="flex gap-2">
          <Skeleton className="h-9 w-52" />
          <Skeleton className="h-9 w-28" />
        </div>
      </div>
      <div className="mb-5 flex h-10 items-center gap-4 border-b border-line">
        {["w-14", "w-24", "w-14", "w-20", "w-10", "w-16"].map((width, i) => (
          <Skeleton key={i} className={`mx-3 h-4 ${width}`} />
        ))}
      </div>
    </div>
  );
}
