"use client";
// The history tab: the versions on the left; on the right what the chosen one changed (or any two
// compared), section by section, with the way back to it.
import { keepPreviousData, useInfiniteQuery, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { ArrowRight, Eye } from "lucide-react";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useId, useMemo } from "react";
import { buttonClass } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Notice } from "@/components/ui/notice";
import { Select } from "@/components/ui/select";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/components/ui/errors";
import { ExactTime } from "@/components/ui/relative-time";
import { historyHref, versionHref } from "@/components/ui/routes";
import { useTRPC } from "@/components/trpc/client";
import { OFFSET_PAGES } from "@/components/trpc/offset-pages";
import type { VersionListItem } from "@/server/history/schemas";
import { resolveCompare, versionsInput } from "./history-url";
import { RollbackButton } from "./rollback-dialog";
import { DiffTotals, VersionDiffView } from "./version-diff";
import { TimelineSkeleton, VersionTimeline } from "./version-timeline";

function navigate(playbookId: string, compare: { from: number; to: number }) {
  // The History API, as the other tabs do: Next's router follows without a server round trip.
  window.history.pushState(null, "", historyHref(playbookId, compare));
}

export function HistoryView({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const searchParams = useSearchParams();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const current = playbook.version;
  const { from, to } = resolveCompare({ from: searchParams.get("from"), to: searchParams.get("to") }, current);

  const versionsQuery = useInfiniteQuery(trpc.history.versions.infiniteQueryOptions(versionsInput(playbookId), OFFSET_PAGES));
  const pages = versionsQuery.data?.pages;
  const versions = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const byNumber = new Map(versions.map((version) => [version.number, version]));
  const toVersion = useVersion(playbookId, to, current, byNumber.get(to));
  const compareId = useId();

  return (
    <div className="grid grid-cols-1 items-start gap-6 pb-16 lg:grid-cols-[minmax(0,22rem)_minmax(0,1fr)]">
      <div className="lg:sticky lg:top-[4.5rem] lg:max-h-[calc(100dvh-5.5rem)] lg:overflow-y-auto lg:rounded-card">
        {versionsQuery.isPending ? (
          <TimelineSkeleton />
        ) : versionsQuery.isError ? (
          <Notice tone="danger" title="The versions could not be loaded">
            {errorMessage(versionsQuery.error)}
          </Notice>
        ) : (
          <VersionTimeline
            playbookId={playbookId}
            versions={versions}
            currentVersion={current}
            from={from}
            to={to}
            onSelect={(version) => {
              navigate(playbookId, { from: Math.max(1, version - 1), to: version });
              // Stacked on a narrow screen, the change is below the whole timeline: go there.
              if (window.matchMedia("(max-width: 1023px)").matches) {
                document.getElementById(compareId)?.scrollIntoView({ block: "start" });
              }
            }}
            hasNextPage={versionsQuery.hasNextPage}
            fetchingNextPage={versionsQuery.isFetchingNextPage}
            onLoadMore={() => void versionsQuery.fetchNextPage()}
          />
        )}
      </div>
      <section
        id={compareId}
        aria-labelledby={`${compareId}-heading`}
        className="min-w-0 scroll-mt-16 rounded-card border border-line bg-surface p-4 shadow-card sm:p-5"
      >
        <h2 id={`${compareId}-heading`} className="sr-only">
          Changes
        </h2>
        <CompareBar playbookId={playbookId} from={from} to={to} current={current} versions={versions} />
        <VersionMeta playbookId={playbookId} version={toVersion} current={current} />
        <CompareResult playbookId={playbookId} from={from} to={to} />
      </section>
    </div>
  );
}

function CompareBar({
  playbookId,
  from,
  to,
  current,
  versions,
}: {
  playbookId: string;
  from: number;
  to: number;
  current: number;
  versions: VersionListItem[];
}) {
  // Every loaded version, plus the two in the URL even when they are further back than loaded.
  const numbers = [...new Set([...versions.map((v) => v.number), from, to])].sort((a, b) => b - a);
  const options = numbers.map((n) => ({ value: String(n), label: `v${n}${n === current ? " (current)" : ""}` }));
  return (
    <div className="flex flex-wrap items-center gap-2 border-b border-line pb-4">
      <span className="w-full text-sm font-medium text-ink sm:w-auto">Compare</span>
      <Select
        label="From version"
        className="min-w-0 flex-1 sm:w-36 sm:flex-none"
        value={String(from)}
        onValueChange={(value) => navigate(playbookId, { from: Number(value), to })}
        options={options}
      />
      <ArrowRight aria-hidden className="size-4 text-ink-faint" />
      <Select
        label="To version"
        className="min-w-0 flex-1 sm:w-36 sm:flex-none"
        value={String(to)}
        onValueChange={(value) => navigate(playbookId, { from, to: Number(value) })}
        options={options}
      />
      {to !== current ? (
        <Link
          href={historyHref(playbookId, { from: to, to: current })}
          className="ml-auto text-[13px] font-medium text-accent-ink hover:underline"
        >
          Compare v{to} with current
        </Link>
      ) : null}
    </div>
  );
}

/**
 * One version's record when the timeline has not loaded that far back. Versions are numbered
 * 1…current without gaps and listed newest first, so version n sits at offset current − n.
 */
function useVersion(playbookId: string, number: number, current: number, loaded: VersionListItem | undefined) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.history.versions.queryOptions({ playbookId, cursor: current - number, limit: 1 }),
    enabled: loaded === undefined,
  });
  return loaded ?? query.data?.items.find((item) => item.number === number);
}

function VersionMeta({ playbookId, version, current }: { playbookId: string; version: VersionListItem | undefined; current: number }) {
  if (!version) return <Skeleton className="mt-4 h-14 w-full" />;
  return (
    <div className="flex flex-col gap-3 border-b border-line py-4 sm:flex-row sm:items-start sm:justify-between">
      <div className="min-w-0">
        <p className="text-base font-semibold tracking-tight text-ink">
          Version {version.number}
          <span className="ml-2 text-sm font-normal text-ink-muted">
            by <span className="font-medium text-ink">{version.author}</span> · <ExactTime date={version.createdAt} />
          </span>
        </p>
        <p className="mt-1 whitespace-pre-wrap break-words text-sm text-ink-muted">{version.reason || "No reason recorded."}</p>
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <Link href={versionHref(playbookId, version.number)} className={buttonClass("secondary", "sm")}>
          <Eye aria-hidden /> View playbook at v{version.number}
        </Link>
        <RollbackButton playbookId={playbookId} version={version.number} currentVersion={current} />
      </div>
    </div>
  );
}

function CompareResult({ playbookId, from, to }: { playbookId: string; from: number; to: number }) {
  const trpc = useTRPC();
  const same = from === to;
  const query = useQuery({
    ...trpc.history.diff.queryOptions({ playbookId, from, to }),
    enabled: !same,
    placeholderData: keepPreviousData,
  });
  if (same) {
    return (
      <p className="mt-4 rounded-lg border border-dashed border-line-strong px-4 py-8 text-center text-sm text-ink-muted">
        {to === 1
          ? "Version 1 is where this playbook's history starts. View the playbook as it was then, or compare it with a later version."
          : "Both sides are the same version. Choose two different versions to compare."}
      </p>
    );
  }
  if (query.isPending) {
    return (
      <LoadingStatus label="Comparing…" className="mt-4 flex flex-col gap-3">
        <Skeleton className="h-5 w-64" />
        <Skeleton className="h-32 w-full rounded-lg" />
      </LoadingStatus>
    );
  }
  if (query.isError) {
    return (
      <Notice tone="danger" className="mt-4" title="The versions could not be compared">
        {errorMessage(query.error)}
      </Notice>
    );
  }
  const diff = query.data;
  return (
    <div
      className={cn("mt-4 flex flex-col gap-4 transition-opacity", query.isPlaceholderData && "opacity-60")}
      aria-busy={query.isPlaceholderData}
    >
      <div className="flex flex-wrap items-center gap-2">
        <p className="text-sm font-medium text-ink">
          From v{diff.from} to v{diff.to}
          {diff.from > diff.to ? <span className="font-normal text-ink-muted"> (backwards)</span> : null}
        </p>
        <DiffTotals diff={diff} />
      </div>
      <VersionDiffView diff={diff} />
    </div>
  );
}

export function HistorySkeleton() {
  return (
    <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,22rem)_minmax(0,1fr)]">
      <TimelineSkeleton />
      <div className="rounded-card border border-line bg-surface p-5 shadow-card">
        <Skeleton className="h-9 w-80 max-w-full" />
        <Skeleton className="mt-6 h-5 w-64" />
        <Skeleton className="mt-2 h-4 w-96 max-w-full" />
        <Skeleton className="mt-6 h-40 w-full rounded-lg" />
      </div>
    </div>
  );
}
