"use client";
// Every version of the playbook, newest first: number, author, when, why, what it changed, and
// the delta it came from. Choosing one shows what it did on the right.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Skeleton } from "@/components/ui/skeleton";
import { SkeletonRows } from "@/components/ui/skeleton-rows";
import { RelativeTime } from "@/components/ui/relative-time";
import { historyHref, versionHref } from "@/components/ui/routes";
import { ORIGIN_META } from "@/components/shared/delta-labels";
import { ItsDeltaLink } from "@/components/shared/its-delta-link";
import type { VersionListItem } from "@/server/history/schemas";
import { describeVersionCounts } from "./labels";

export function VersionTimeline({
  playbookId,
  versions,
  currentVersion,
  from,
  to,
  onSelect,
  hasNextPage,
  fetchingNextPage,
  onLoadMore,
}: {
  playbookId: string;
  versions: VersionListItem[];
  currentVersion: number;
  from: number;
  to: number;
  onSelect: (version: number) => void;
  hasNextPage: boolean;
  fetchingNextPage: boolean;
  onLoadMore: () => void;
}) {
  return (
    <section aria-label="Versions" className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      <ol className="divide-y divide-line">
        {versions.map((version) => (
          <li key={version.number}>
            <VersionRow
              playbookId={playbookId}
              version={version}
              current={version.number === currentVersion}
              selected={version.number === to}
              isFrom={version.number === from && from !== to}
              onSelect={onSelect}
            />
          </li>
        ))}
      </ol>
      {hasNextPage ? (
        <div className="border-t border-line p-2">
          <Button variant="ghost" size="sm" className="w-full" disabled={fetchingNextPage} onClick={onLoadMore}>
            {fetchingNextPage ? "Loading…" : "Load older versions"}
          </Button>
        </div>
      ) : null}
    </section>
  );
}

function VersionRow({
  playbookId,
  version,
  current,
  selected,
  isFrom,
  onSelect,
}: {
  playbookId: string;
  version: VersionListItem;
  current: boolean;
  selected: boolean;
  isFrom: boolean;
  onSelect: (version: number) => void;
}) {
  const changes = describeVersionCounts(version.counts);
  const origin = version.deltaOrigin ? ORIGIN_META[version.deltaOrigin] : null;
  return (
    <div
      className={cn(
        "group relative border-l-2 px-4 py-3 transition-colors",
        selected ? "border-accent bg-accent-soft/50" : isFrom ? "border-line-strong bg-subtle/50" : "border-transparent hover:bg-subtle/60",
      )}
    >
      <div className="flex flex-wrap items-center gap-1.5">
        <a
          href={historyHref(playbookId, { from: Math.max(1, version.number - 1), to: version.number })}
          aria-current={selected ? "true" : undefined}
          onClick={(event) => {
            if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0) return;
            event.preventDefault();
            onSelect(version.number);
          }}
          className="text-sm font-semibold tabular-nums text-ink outline-none after:absolute after:inset-0 focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus"
        >
          Version {version.number}
        </a>
        {current ? <Badge tone="green">Current</Badge> : null}
        {isFrom ? <Badge tone="neutral">Compared from</Badge> : null}
        {origin ? <Badge tone={origin.tone}>{origin.label}</Badge> : null}
        <RelativeTime date={version.createdAt} className="ml-auto text-xs text-ink-faint" />
      </div>
      <p className="mt-1 line-clamp-2 break-words text-[13px] leading-snug text-ink-muted">{version.reason || "No reason recorded."}</p>
      <div className="mt-1.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-ink-faint">
        <span className="font-medium text-ink-muted">{version.author}</span>
        {changes.length > 0 ? <span aria-hidden>·</span> : null}
        {changes.length > 0 ? <span>{changes.join(" · ")}</span> : null}
      </div>
      <div className="relative z-10 mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs">
        <Link href={versionHref(playbookId, version.number)} className="font-medium text-accent-ink hover:underline">
          View playbook at v{version.number}
        </Link>
        {version.deltaId && version.deltaOrigin !== "rollback" ? <ItsDeltaLink playbookId={playbookId} deltaId={version.deltaId} /> : null}
      </div>
    </div>
  );
}

export function TimelineSkeleton() {
  return (
    <SkeletonRows label="Loading versions…" rows={6} rowClassName="px-4 py-3">
      <Skeleton className="h-4 w-32" />
      <Skeleton className="mt-2 h-3.5 w-full" />
      <Skeleton className="mt-2 h-3 w-40" />
    </SkeletonRows>
  );
}
