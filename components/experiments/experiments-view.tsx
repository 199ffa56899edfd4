"use client";
// The experiments list (/experiments): every experiment with its status, leader, significance, SRM
// flag and progress, filtered by status and playbook in the URL.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { FilterX, FlaskConical, Plus, SearchX } from "lucide-react";
import Link from "next/link";
import { Button, buttonClass } from "@/components/ui/button";
import { TableSkeleton } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import { plural } from "@/components/ui/format";
import { LoadFailed } from "@/components/ui/load-failed";
import { FilterSelect } from "@/components/ui/select";
import { useUrlFilters } from "@/components/ui/use-url-filters";
import { PlaybookFilter } from "@/components/playbooks/playbook-filter";
import { useCan } from "@/components/auth/session-context";
import { useTRPC } from "@/components/trpc/client";
import { EXPERIMENT_STATUSES, type ExperimentStatus } from "@/server/experiments/schemas";
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

export function ExperimentsView() {
  const trpc = useTRPC();
  const canCreate = useCan("curator");
  const { filters, update, reset } = useUrlFilters(parseExperimentFilters, writeExperimentFilters);
  const query = useQuery({
    ...trpc.experiments.list.queryOptions(experimentListInput(filters)),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.some((experiment) => experiment.status === "running") ? RUNNING_POLL_MS : false),
  });
  const items = query.data ?? [];

  return (
    <>
      <div className="flex flex-col gap-4 pb-5 pt-8 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-ink">Experiments</h1>
          <p className="mt-1 max-w-2xl text-sm text-ink-muted">
            Variants of a playbook served side by side to agents assigned by consistent hashing, with the success rate, its significance and
            the guardrails of each against the control.
          </p>
        </div>
        {canCreate ? (
          <Link href={newExperimentHref(filters.playbookId ?? undefined)} className={buttonClass("primary")}>
            <Plus aria-hidden /> New experiment
          </Link>
        ) : null}
      </div>

      <div className="relative z-20 -mx-4 flex flex-wrap items-center gap-2 border-b border-line bg-canvas/95 px-4 py-3 sm:sticky sm:top-14 sm:-mx-6 sm:px-6 lg:mx-0 lg:px-0">
        <PlaybookFilter value={filters.playbookId} onChange={(playbookId) => update({ playbookId })} />
        <FilterSelect<ExperimentStatus>
          label="Status"
          prefix="Status"
          className="w-full sm:w-44"
          value={filters.status}
          onValueChange={(status) => update({ status })}
          any={{ label: "Any" }}
          options={EXPERIMENT_STATUSES.map((status) => ({ value: status, label: STATUS_META[status].label }))}
        />
        <div className="ml-auto flex items-center gap-2 text-xs text-ink-muted" aria-live="polite">
          {query.isFetching ? <span className="size-1.5 animate-pulse rounded-full bg-accent" aria-hidden /> : null}
          <span className="tabular-nums">{query.isPending ? "Loading…" : plural(items.length, "experiment")}</span>
          {hasExperimentFilters(filters) ? (
            <Button size="sm" variant="ghost" className="h-7" onClick={reset}>
              <FilterX aria-hidden /> Reset
            </Button>
          ) : null}
        </div>
      </div>

      <div className="pb-16 pt-4">
        {query.isPending ? (
          <TableSkeleton label="Loading experiments…" rows={5} />
        ) : query.isError && !query.data ? (
          <LoadFailed what="experiments" error={query.error} onRetry={() => void query.refetch()} />
        ) : items.length === 0 ? (
          hasExperimentFilters(filters) ? (
            <EmptyState
              icon={<SearchX />}
              title="No experiments match"
              actions={
                <Button variant="primary" onClick={reset}>
                  <FilterX aria-hidden /> Reset filters
                </Button>
              }
            >
              No experiment has this playbook and status. Loosen the filters, or reset to see every experiment.
            </EmptyState>
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
