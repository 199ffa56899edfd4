"use client";
// The playbook as it was at one version, read-only, section by section. Drawn through a window
// virtualizer like the live list, so a version of 10,000 bullets keeps a few dozen rows in the DOM.
import { keepPreviousData, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { useWindowVirtualizer } from "@tanstack/react-virtual";
import { ArrowLeft, GitCompare } from "lucide-react";
import Link from "next/link";
import { useMemo, useRef, useState } from "react";
import { BreakableName } from "@/components/ui/breakable-name";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { cn } from "@/components/ui/cn";
import { Notice } from "@/components/ui/notice";
import { Skeleton } from "@/components/ui/skeleton";
import { SkeletonRows } from "@/components/ui/skeleton-rows";
import { useDocumentOffset } from "@/components/ui/use-document-offset";
import { CounterBadges } from "@/components/ui/counter-badges";
import { errorMessage } from "@/components/ui/errors";
import { ExactTime } from "@/components/ui/relative-time";
import { formatNumber, plural } from "@/components/ui/format";
import { historyHref } from "@/components/ui/routes";
import { useTRPC } from "@/components/trpc/client";
import type { BulletState, PlaybookAtVersion, SectionAtVersion } from "@/server/history/schemas";
import { RollbackButton } from "./rollback-dialog";

type Row = { kind: "section"; key: string; section: SectionAtVersion } | { kind: "bullet"; key: string; bullet: BulletState };

function buildRows(snapshot: PlaybookAtVersion): Row[] {
  return snapshot.sections.flatMap((section): Row[] => [
    { kind: "section", key: `s:${section.id}`, section },
    ...section.bullets.map((bullet): Row => ({ kind: "bullet", key: bullet.externalId, bullet })),
  ]);
}

export function PlaybookAtVersionView({ playbookId, version }: { playbookId: string; version: number }) {
  const trpc = useTRPC();
  const [includeArchived, setIncludeArchived] = useState(false);
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const query = useQuery({
    ...trpc.history.at.queryOptions({ playbookId, version, includeArchived }),
    placeholderData: keepPreviousData,
  });

  return (
    <div className="pb-16">
      <div className="mb-4 flex flex-col gap-3 rounded-card border border-line bg-surface p-4 shadow-card sm:flex-row sm:items-start sm:justify-between sm:p-5">
        <div className="min-w-0">
          <Link
            href={historyHref(playbookId, { from: Math.max(1, version - 1), to: version })}
            className="mb-1.5 inline-flex items-center gap-1 text-xs font-medium text-ink-muted hover:text-ink"
          >
            <ArrowLeft aria-hidden className="size-3.5" /> History
          </Link>
          <h2 className="flex flex-wrap items-center gap-2 text-lg font-semibold tracking-tight text-ink">
            The playbook at version {version}
            {version === playbook.version ? (
              <Badge tone="green">Current</Badge>
            ) : (
              <Badge tone="neutral">Read-only · current is v{playbook.version}</Badge>
            )}
          </h2>
          {query.data ? (
            <>
              <p className="mt-1 text-[13px] text-ink-muted">
                By <span className="font-medium text-ink">{query.data.author}</span> · <ExactTime date={query.data.createdAt} /> ·{" "}
                {formatNumber(query.data.activeCount)} active, {formatNumber(query.data.archivedCount)} archived
              </p>
              <p className="mt-1 whitespace-pre-wrap break-words text-sm text-ink-muted">{query.data.reason}</p>
            </>
          ) : (
            <Skeleton className="mt-2 h-4 w-80 max-w-full" />
          )}
        </div>
        <div className="flex shrink-0 flex-wrap items-center gap-2">
          {version !== playbook.version ? (
            <Link href={historyHref(playbookId, { from: version, to: playbook.version })} className={buttonClass("secondary", "sm")}>
              <GitCompare aria-hidden /> Compare with current
            </Link>
          ) : null}
          <RollbackButton playbookId={playbookId} version={version} currentVersion={playbook.version} />
        </div>
      </div>
      <label className="mb-3 inline-flex cursor-pointer items-center gap-2 text-[13px] text-ink-muted">
        <Checkbox checked={includeArchived} onChange={(event) => setIncludeArchived(event.target.checked)} />
        Show archived bullets too
      </label>
      {query.isPending ? (
        <RowsSkeleton />
      ) : query.isError ? (
        <Notice tone="danger" title="This version could not be rebuilt">
          {errorMessage(query.error)}
        </Notice>
      ) : (
        <VersionRows snapshot={query.data} dimmed={query.isPlaceholderData} />
      )}
    </div>
  );
}

function VersionRows({ snapshot, dimmed }: { snapshot: PlaybookAtVersion; dimmed: boolean }) {
  const rows = useMemo(() => buildRows(snapshot), [snapshot]);
  const listRef = useRef<HTMLDivElement>(null);
  const scrollMargin = useDocumentOffset(listRef);
  const virtualizer = useWindowVirtualizer({
    count: rows.length,
    estimateSize: (index) => (rows[index]?.kind === "section" ? 50 : 80),
    getItemKey: (index) => rows[index]?.key ?? index,
    overscan: 8,
    scrollMargin,
    // The server draws the first rows too, so the page reads before hydration.
    initialRect: { width: 1200, height: 900 },
  });

  return (
    <div
      className={cn("overflow-hidden rounded-card border border-line bg-surface shadow-card transition-opacity", dimmed && "opacity-60")}
    >
      <div
        ref={listRef}
        role="list"
        aria-label={`Bullets at version ${snapshot.version}`}
        className="relative"
        style={{ height: virtualizer.getTotalSize() }}
      >
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <div
              key={item.key}
              data-index={item.index}
              ref={virtualizer.measureElement}
              role="listitem"
              className="absolute left-0 top-0 w-full"
              style={{ transform: `translateY(${item.start - virtualizer.options.scrollMargin}px)` }}
            >
              {row.kind === "section" ? <SectionRow section={row.section} /> : <BulletStateRow bullet={row.bullet} />}
            </div>
          );
        })}
      </div>
      {rows.length === 0 ? <p className="px-5 py-10 text-center text-sm text-ink-muted">This version had no sections.</p> : null}
    </div>
  );
}

function SectionRow({ section }: { section: SectionAtVersion }) {
  const count = section.bullets.length;
  return (
    <div className="flex items-center gap-3 border-b border-line bg-canvas/80 px-4 pb-2 pt-6 sm:px-5">
      <h3 className="min-w-0 truncate text-xs font-semibold uppercase tracking-wide text-ink-muted">{section.name}</h3>
      <span className="shrink-0 text-xs tabular-nums text-ink-faint">{count === 0 ? "no bullets" : plural(count, "bullet")}</span>
      <span aria-hidden className="h-px flex-1 bg-line" />
    </div>
  );
}

function BulletStateRow({ bullet }: { bullet: BulletState }) {
  return (
    <div
      className={cn(
        "flex flex-col gap-2 border-b border-line px-4 py-3.5 sm:flex-row sm:items-start sm:gap-4 sm:px-5",
        bullet.status === "archived" && "bg-subtle/40",
      )}
    >
      <span className="shrink-0 break-normal font-mono text-xs font-medium text-ink-faint sm:w-[11ch] sm:pt-0.5">
        [<BreakableName text={bullet.externalId} />]
      </span>
      <p
        className={cn(
          "min-w-0 flex-1 whitespace-pre-wrap break-words text-sm leading-relaxed",
          bullet.status === "archived" ? "text-ink-muted" : "text-ink",
        )}
      >
        {bullet.content}
      </p>
      <div className="flex shrink-0 flex-wrap items-center gap-1.5 sm:justify-end sm:pt-px">
        {bullet.status === "archived" ? <Badge tone="gray">Archived</Badge> : null}
        <CounterBadges helpful={bullet.helpful} harmful={bullet.harmful} neutral={bullet.neutral} countersKnown={bullet.countersKnown} />
      </div>
    </div>
  );
}

function RowsSkeleton() {
  return (
    <SkeletonRows label="Rebuilding the version…" rows={8} rowClassName="flex gap-4 px-5 py-4">
      <Skeleton className="h-3.5 w-20" />
      <div className="flex-1 space-y-2">
        <Skeleton className="h-3.5 w-full" />
        <Skeleton className="h-3.5 w-2/3" />
      </div>
    </SkeletonRows>
  );
}

export function PlaybookAtVersionSkeleton() {
  return (
    <div>
      <div className="mb-4 rounded-card border border-line bg-surface p-5 shadow-card">
        <Skeleton className="h-3 w-16" />
        <Skeleton className="mt-2 h-6 w-72 max-w-full" />
        <Skeleton className="mt-2 h-4 w-96 max-w-full" />
      </div>
      <Skeleton className="mb-3 h-5 w-48" />
      <RowsSkeleton />
    </div>
  );
}
