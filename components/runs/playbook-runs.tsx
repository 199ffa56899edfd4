"use client";
// A playbook's Runs tab: how its reflector and curator stand (provider, circuit breaker, pause,
// budgets, queue, what waits) with the buttons to run them now, how an agent connects, then its
// latest runs and traces. The status is asked for again every two seconds while anything is queued
// or running, and every change refreshes the lists and the playbook (counters, pending deltas).
import { useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef } from "react";
import { useCan } from "@/components/auth/session-context";
import { LoadingStatus, Skeleton, Skeletons } from "@/components/ui/skeleton";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { TableSkeleton } from "@/components/ui/data-table";
import { DetailSection } from "@/components/ui/detail-parts";
import type { RunsStatus } from "@/server/runs/schemas";
import { BudgetMeter } from "./budget-meter";
import { ConnectAgent } from "./connect-agent";
import { RecentRuns, RecentTraces } from "./recent-lists";
import { playbookRunsInputs } from "./runs-url";
import { CuratorCard, ProviderCard, QueueCard, ReflectorCard } from "./status-cards";
import { StatusNotices } from "./status-notices";
import { activeCount, ACTIVE_POLL_MS, IDLE_POLL_MS } from "./status-polling";
import { StudioBudgetButton } from "./studio-budget-dialog";

export function PlaybookRuns({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invalidateCuration = useInvalidateCuration();
  const inputs = playbookRunsInputs(playbookId);
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  const { data: status } = useSuspenseQuery({
    ...trpc.runs.status.queryOptions(inputs.status),
    // Paused runs stay queued without moving: no need to ask as often.
    refetchInterval: (query) => {
      const data = query.state.data;
      if (!data || activeCount(data) === 0) return IDLE_POLL_MS;
      return data.paused || data.circuit.state === "open" ? IDLE_POLL_MS : ACTIVE_POLL_MS;
    },
  });

  // Something moved (a run started or ended, a trace arrived): refresh what it changed.
  const signature = `${status.queue.queued}|${status.queue.running}|${status.queue.failed}|${status.unreflected}|${status.uncurated}`;
  const seen = useRef(signature);
  useEffect(() => {
    if (seen.current === signature) return;
    seen.current = signature;
    void Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.runs.list.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.traces.pathKey() }),
      invalidateCuration(),
    ]);
  }, [signature, queryClient, trpc, invalidateCuration]);

  return (
    <div className="flex flex-col gap-6 pb-16">
      <h2 className="sr-only">Runs</h2>
      <StatusNotices playbookId={playbookId} status={status} />
      <section aria-label="Run status" className="grid grid-cols-1 gap-4 md:grid-cols-2 xl:grid-cols-4">
        <ReflectorCard playbookId={playbookId} status={status} />
        <CuratorCard playbookId={playbookId} status={status} />
        <QueueCard playbookId={playbookId} status={status} />
        <ProviderCard status={status} />
      </section>
      <BudgetSection playbookId={playbookId} status={status} />
      <RecentRuns playbookId={playbookId} />
      <RecentTraces playbookId={playbookId} />
      <ConnectAgent playbookName={playbook.name} />
    </div>
  );
}

function BudgetSection({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
  const own = status.budgets.find((budget) => budget.scope === "playbook");
  const studio = status.budgets.find((budget) => budget.scope === "studio");
  // The settings page shows the budget to everyone; only admins can change it there.
  const canEdit = useCan("playbook.settings");
  return (
    <DetailSection title="Monthly LLM budget">
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        {own ? (
          <BudgetMeter
            usage={own}
            title="This playbook"
            action={
              <Link href={`/playbooks/${playbookId}/settings`} className="text-[13px] font-medium text-accent-ink hover:underline">
                {canEdit ? "Edit" : "Settings"}
              </Link>
            }
          />
        ) : null}
        {studio ? (
          <BudgetMeter usage={studio} title="Studio (all playbooks)" action={<StudioBudgetButton label="Edit" variant="ghost" />} />
        ) : null}
      </div>
      {status.provider.name === "offline" ? (
        <p className="mt-3 text-xs text-ink-faint">The offline provider uses no tokens: budgets apply once a model is configured.</p>
      ) : null}
    </DetailSection>
  );
}

export function PlaybookRunsSkeleton() {
  return (
    <LoadingStatus label="Loading runs…" className="flex flex-col gap-6 pb-16">
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2 xl:grid-cols-4">
        <Skeletons count={4} className="h-44 rounded-card" />
      </div>
      <Skeleton className="h-40 rounded-card" />
      <TableSkeleton label="Loading runs…" rows={4} />
    </LoadingStatus>
  );
}
