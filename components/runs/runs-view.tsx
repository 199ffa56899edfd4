"use client";
// The runs list (/runs): every reflector and curator run, newest first, filtered by the URL. While a
// run on screen is queued or running, the list asks again every few seconds.
import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import { Bot } from "lucide-react";
import Link from "next/link";
import { useMemo } from "react";
import { buttonClass } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FilterBar, FilterSummary, NoMatches } from "@/components/ui/filter-bar";
import { LoadFailed } from "@/components/ui/load-failed";
import { PageHeader } from "@/components/ui/page-header";
import { PlaybookFilter } from "@/components/shared/playbook-filter";
import { UrlFilterSelect } from "@/components/ui/url-filter-select";
import { OFFSET_PAGES } from "@/components/trpc/offset-pages";
import { useTRPC } from "@/components/trpc/client";
import { TableSkeleton } from "@/components/ui/data-table";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import { formatNumber, plural } from "@/components/ui/format";
import { RUN_ROLES, RUN_STATUSES } from "@/server/runs/schemas";
import { isActive, ROLE_META, RUN_STATUS_LABELS } from "@/components/shared/run-labels";
import { RunsTable } from "./runs-table";
import { hasRunFilters, parseRunFilters, runListInput, writeRunFilters } from "./runs-url";
import { StudioBudgetButton } from "./studio-budget-dialog";

const RUNS_POLL_MS = 3_000;
const ROLE_OPTIONS = RUN_ROLES.map((role) => ({ value: role, label: ROLE_META[role].label }));
const STATUS_OPTIONS = RUN_STATUSES.map((status) => ({ value: status, label: RUN_STATUS_LABELS[status] }));

export function RunsView() {
  const trpc = useTRPC();
  const { filters, update, reset } = useUrlFilters(parseRunFilters, writeRunFilters);
  const query = useInfiniteQuery({
    ...trpc.runs.list.infiniteQueryOptions(runListInput(filters), OFFSET_PAGES),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.pages.some((page) => page.items.some(isActive)) ? RUNS_POLL_MS : false),
  });
  const pages = query.data?.pages;
  const items = useMemo(() => pages?.flatMap((page) => page.items) ?? [], [pages]);
  const total = pages?.[0]?.total ?? 0;
  const hasNextPage = query.hasNextPage && !query.isPlaceholderData;

  return (
    <>
      <PageHeader
        title="Runs"
        description="The reflector and curator at work: each run with its provider, prompts, answers, tokens and cost, and the delta it proposed."
        actions={<StudioBudgetButton />}
      />

      <FilterBar className="flex flex-wrap items-center gap-2">
        <PlaybookFilter value={filters.playbookId} onChange={(playbookId) => update({ playbookId })} />
        <UrlFilterSelect filters={filters} update={update} name="role" label="Role" options={ROLE_OPTIONS} />
        <UrlFilterSelect filters={filters} update={update} name="status" label="Status" options={STATUS_OPTIONS} />
        <FilterSummary
          text={query.isPending ? "Loading…" : plural(total, "run")}
          loading={query.isFetching && !query.isFetchingNextPage}
          onReset={hasRunFilters(filters) ? reset : undefined}
        />
      </FilterBar>

      <div className="pb-16 pt-4">
        {query.isPending ? (
          <TableSkeleton label="Loading runs…" />
        ) : query.isError && !query.data ? (
          <LoadFailed what="runs" error={query.error} onRetry={() => void query.refetch()} />
        ) : items.length === 0 ? (
          hasRunFilters(filters) ? (
            <NoMatches title="No runs match" onReset={reset}>
              No run has this playbook, role and status. Loosen the filters, or reset to see every run.
            </NoMatches>
          ) : (
            <EmptyState
              icon={<Bot />}
              title="No runs yet"
              actions={
                <Link href="/traces" className={buttonClass("primary")}>
                  See the traces
                </Link>
              }
            >
              A reflector run starts for every trace an agent reports (or when someone presses Reflect now); the curator runs once enough
              reflections wait. Both show up here.
            </EmptyState>
          )
        ) : (
          <RunsTable
            items={items}
            showPlaybook={filters.playbookId === null}
            hasNextPage={hasNextPage}
            fetchingNextPage={query.isFetchingNextPage}
            onLoadMore={() => void query.fetchNextPage()}
            dimmed={query.isPlaceholderData}
            endNote={items.length > 10 ? `End of the list · ${formatNumber(items.length)} runs` : null}
          />
        )}
      </div>
    </>
  );
}
