"use client";
// The experiments list (/experiments): every experiment with its status, leader, significance, SRM
// flag and progress, filtered by status and playbook in the URL.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { FlaskConical, Plus } from "lucide-react";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { FilterBar, FilterSummary, NoMatches } from "@/components/ui/filter-bar";
import { plural } from "@/components/ui/format";
import { LoadFailed } from "@/components/ui/load-failed";
import { PageHeader } from "@/components/ui/page-header";
import { UrlFilterSelect } from "@/components/ui/url-filter-select";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import { PlaybookFilter } from "@/components/shared/playbook-filter";
import { useCan } from "@/components/auth/session-context";
import { useTRPC } from "@/components/trpc/client";
import { EXPERIMENT_STATUSES } from "@/server/experiments/schemas";
import { STATUS_META } from "./experiment-badges";
import {
  experimentListInput,
  hasExperimentFilters,
  newExperimentHref,
  parseExperimentFilters,
  writeExperimentFilters,
} from "./experiment-url";
import { ExperimentsTable } from "./experiments-table";

/** Running experiments gather units all the time: the list refreshes while one is on screen. */
const RUNNING_POLL_MS = 15_000;
const STATUS_OPTIONS = EXPERIMENT_STATUSES.map((status) => ({ value: status, label: STATUS_META[status].label }));

export function ExperimentsView() {
  const trpc = useTRPC();
  const canCreate = useCan("experiment.manage");
  const { filters, update, reset } = useUrlFilters(parseExperimentFilters, writeExperimentFilters);
  const query = useQuery({
    ...trpc.experiments.list.queryOptions(experimentListInput(filters)),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.some((experiment) => experiment.status === "running") ? RUNNING_POLL_MS : false),
  });
  const items = query.data ?? [];

  return (
    <>
      <PageHeader
        title="Experiments"
        description="Variants of a playbook served side by side to agents assigned by consistent hashing, with the success rate, its significance and the guardrails of each against the control."
        actions={
          canCreate ? (
            <Link href={newExperimentHref(filters.playbookId ?? undefined)} className={buttonClass("primary")}>
              <Plus aria-hidden /> New experiment
            </Link>
          ) : null
        }
      />

      <FilterBar className="flex flex-wrap items-center gap-2">
        <PlaybookFilter value={filters.playbookId} onChange={(playbookId) => update({ playbookId })} />
        <UrlFilterSelect
          filters={filters}
          update={update}
          name="status"
          label="Status"
          className="w-full sm:w-44"
          options={STATUS_OPTIONS}
        />
        <FilterSummary
          text={query.isPending ? "Loading…" : plural(items.length, "experiment")}
          loading={query.isFetching}
          onReset={hasExperimentFilters(filters) ? reset : undefined}
        />
      </FilterBar>

      <div className="pb-16 pt-4">
        {query.isPending ? (
          <TableSkeleton label="Loading experiments…" rows={5} />
        ) : query.isError && !query.data ? (
          <LoadFailed what="experiments" error={query.error} onRetry={() => void query.refetch()} />
        ) : items.length === 0 ? (
          hasExperimentFilters(filters) ? (
            <NoMatches title="No experiments match" onReset={reset}>
              No experiment has this playbook and status. Loosen the filters, or reset to see every experiment.
            </NoMatches>
          ) : (
            <EmptyState
              icon={<FlaskConical />}
              title="No experiments yet"
              actions={
                canCreate ? (
                  <Link href={newExperimentHref()} className={buttonClass("primary")}>
                    <Plus aria-hidden /> New experiment
                  </Link>
                ) : null
              }
            >
              Compare a curated playbook with the version before it, or with no playbook at all: agents ask which variant to use, report
              their outcomes, and the results say which variant wins and how sure that is.
            </EmptyState>
          )
        ) : (
          <ExperimentsTable items={items} dimmed={query.isPlaceholderData} />
        )}
      </div>
    </>
  );
}
