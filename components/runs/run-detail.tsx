"use client";
// One run (/runs/[runId]): its state first (why it failed or what it waits for, with Retry), the
// provider and what it cost, what it produced, and what it sent and received round by round; beside
// that the traces it read and the delta it proposed. Asks again every two seconds until it ends.
import { useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { ArrowUpRight, RotateCw } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { RoleGate } from "@/components/auth/role-gate";
import { Button, buttonClass } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Notice } from "@/components/ui/notice";
import { LoadingStatus, Skeleton, Skeletons } from "@/components/ui/skeleton";
import { ExactTime, RelativeTime } from "@/components/ui/relative-time";
import { STATE_META } from "@/components/shared/delta-labels";
import { reviewHref } from "@/components/shared/review-url";
import { CopyButton } from "@/components/ui/copy-button";
import { Breadcrumb, DetailHeadingSkeleton, DetailSection, Fact, Facts } from "@/components/ui/detail-parts";
import { taskTitle } from "@/components/shared/trace-labels";
import { OutcomeBadge } from "@/components/shared/trace-badges";
import { useTRPC } from "@/components/trpc/client";
import type { DeltaStatus } from "@/server/deltas/schemas";
import type { TraceOutcome } from "@/server/traces/schemas";
import type { RunDetail } from "@/server/runs/schemas";
import { formatCost, formatDuration, formatNumber, formatTokens, plural, shortId } from "@/components/ui/format";
import { isActive, ROLE_META, runState, triggerLabel } from "@/components/shared/run-labels";
import { RunStateBadge } from "./run-badges";
import { ReasonText } from "./reason-text";
import { RunOutput } from "./run-output";
import { RunExchange } from "./run-prompt";
import { waitingReason } from "./run-record";
import { runsHref } from "./runs-url";
import { useInvalidateRuns, useRetryRun } from "./use-run-actions";
import { useWhenSettled } from "@/components/ui/use-settled";
import { runHref, traceHref } from "@/components/ui/routes";

const POLL_MS = 2_000;

/** Why a run shows no prompt, answers or output: a trace it read was erased or expired. */
function redactionNotice(run: RunDetail): ReactNode {
  const why = run.redactedReason === "retention" ? "retention" : "erasure";
  return (
    <>
      Content removed with the trace&apos;s {why}
      {run.redactedAt ? (
        <>
          {" "}
          (<ExactTime date={run.redactedAt} />)
        </>
      ) : null}
      . The run&apos;s cost, tokens and links stay.
    </>
  );
}

export function RunDetailView({ runId }: { runId: string }) {
  const trpc = useTRPC();
  const { data: run } = useSuspenseQuery({
    ...trpc.runs.get.queryOptions({ runId }),
    refetchInterval: (query) => (query.state.data && isActive(query.state.data) ? POLL_MS : false),
  });
  const invalidate = useInvalidateRuns();
  // Finished: the counters, the queue and the traces it read have changed.
  useWhenSettled(isActive(run), () => void invalidate());

  return (
    <div className="pb-16">
      <RunHeader run={run} />
      <StateNotice run={run} />
      <UsageStrip run={run} />
      <div className="mt-6 grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="flex min-w-0 flex-col gap-6">
          <DetailSection title="Output">
            {run.redactedAt ? (
              <p className="text-sm text-ink-muted">{redactionNotice(run)}</p>
            ) : run.output === null || run.output === undefined ? (
              <p className="text-sm text-ink-muted">
                {run.status === "failed"
                  ? "No output: the run failed before it finished. The prompt and any answer it got are below."
                  : run.status === "succeeded"
                    ? "This run stored no output."
                    : "No output yet: the run has not finished."}
              </p>
            ) : (
              <RunOutput role={run.role} output={run.output} playbookId={run.playbookId} />
            )}
          </DetailSection>
          <DetailSection title={run.provider === "offline" ? "Rules input and output" : "Prompt and responses"}>
            {run.redactedAt ? (
              <p className="text-sm text-ink-muted">{redactionNotice(run)}</p>
            ) : (
              <RunExchange prompt={run.prompt} rawResponse={run.rawResponse} attempts={run.attempts} />
            )}
          </DetailSection>
        </div>
        <div className="flex min-w-0 flex-col gap-6">
          <DetailsSection run={run} />
          <DeltaSection run={run} />
          <TracesSection run={run} />
          <LinkedRunsSection run={run} />
        </div>
      </div>
    </div>
  );
}

function RunHeader({ run }: { run: RunDetail }) {
  const role = ROLE_META[run.role];
  const Icon = role.icon;
  return (
    <header className="flex flex-col gap-4 pb-5 pt-6 md:flex-row md:items-start md:justify-between">
      <div className="min-w-0">
        <Breadcrumb
          items={[
            { label: "Runs", href: "/runs" },
            { label: run.playbookName, href: runsHref({ playbookId: run.playbookId }) },
            { label: shortId(run.id) },
          ]}
        />
        <h1 className="flex flex-wrap items-center gap-2.5 text-2xl font-semibold tracking-tight text-ink">
          <Icon aria-hidden className="size-6 text-ink-faint" />
          {role.label} run
          <RunStateBadge run={run} />
        </h1>
        <p className="mt-2 text-[13px] text-ink-muted">
          {role.does.charAt(0).toUpperCase() + role.does.slice(1)} · for{" "}
          <Link href={`/playbooks/${run.playbookId}/runs`} className="font-medium text-ink hover:underline">
            {run.playbookName}
          </Link>{" "}
          · queued <RelativeTime date={run.createdAt} className="font-medium text-ink" />
        </p>
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <CopyButton text={run.id} label="Copy run id" what="the run id" />
        {run.delta ? (
          <Link
            href={reviewHref(run.playbookId, { deltaId: run.delta.id, status: run.delta.status === "pending" ? undefined : "all" })}
            className={buttonClass("secondary")}
          >
            {run.delta.status === "pending" ? "Review its delta" : "Open its delta"} <ArrowUpRight aria-hidden />
          </Link>
        ) : null}
      </div>
    </header>
  );
}

function RetryButton({ runId }: { runId: string }) {
  const retry = useRetryRun();
  return (
    <RoleGate action="run.start">
      <Button variant="primary" disabled={retry.isPending} onClick={() => retry.mutate({ runId })}>
        <RotateCw aria-hidden /> {retry.isPending ? "Queueing…" : "Retry"}
      </Button>
    </RoleGate>
  );
}

/** The state in words, big enough to notice: a failure's reason, what a queued run waits for. */
function StateNotice({ run }: { run: RunDetail }) {
  const state = runState(run);
  if (state === "failed") {
    return (
      <Notice tone="danger" title="This run failed" className="mb-5" actions={<RetryButton runId={run.id} />}>
        <span className="whitespace-pre-wrap">
          <ReasonText text={run.error ?? "It failed without a reason."} />
        </span>
      </Notice>
    );
  }
  if (state === "waiting" && run.error) {
    return (
      <Notice tone="warning" title="Waiting" className="mb-5">
        <ReasonText text={waitingReason(run.error)} />
      </Notice>
    );
  }
  if (state === "retrying" && run.error) {
    return (
      <Notice tone="warning" title="Retrying" className="mb-5">
        <ReasonText text={run.error} />
      </Notice>
    );
  }
  if (state === "queued") return <QueuedNotice run={run} />;
  if (state === "running") {
    return (
      <Notice tone="info" title="Running" className="mb-5">
        Started {run.startedAt ? <RelativeTime date={run.startedAt} /> : "just now"}, attempt {run.attempts}. This page updates by itself.
      </Notice>
    );
  }
  return null;
}

/** Queued without a reason of its own: it may still wait because its playbook's runs are paused. */
function QueuedNotice({ run }: { run: RunDetail }) {
  const trpc = useTRPC();
  const paused = useQuery(trpc.runs.status.queryOptions({ playbookId: run.playbookId })).data?.paused ?? false;
  if (paused) {
    return (
      <Notice tone="warning" title="Waiting" className="mb-5">
        Runs of this playbook are paused.{" "}
        <Link href={`/playbooks/${run.playbookId}/runs`} className="font-medium underline underline-offset-2">
          Resume them on its Runs tab
        </Link>
        .
      </Notice>
    );
  }
  return (
    <Notice tone="info" title="Queued" className="mb-5">
      It starts as soon as a worker is free{run.attempts > 0 ? ` (attempt ${run.attempts + 1})` : ""}. This page updates by itself.
    </Notice>
  );
}

function Stat({ label, children, title }: { label: string; children: ReactNode; title?: string }) {
  return (
    <div className="min-w-0 rounded-lg border border-line bg-surface px-3 py-2.5 shadow-card" title={title}>
      <dt className="text-xs text-ink-muted">{label}</dt>
      <dd className="mt-0.5 truncate text-[15px] font-semibold tabular-nums tracking-tight text-ink">{children}</dd>
    </div>
  );
}

function UsageStrip({ run }: { run: RunDetail }) {
  const offline = run.provider === "offline";
  return (
    <dl aria-label="Provider and usage" className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-8">
      <Stat label="Provider" title={offline ? "Rule-based, no LLM call" : undefined}>
        {run.provider}
      </Stat>
      <Stat label="Model" title={run.model}>
        <span className="font-mono text-[13px]">{run.model}</span>
      </Stat>
      <Stat label="Trigger">{triggerLabel(run.trigger)}</Stat>
      <Stat label="Attempts">{formatNumber(run.attempts)}</Stat>
      <Stat label="Tokens in">{offline && run.inputTokens === 0 ? "—" : formatTokens(run.inputTokens)}</Stat>
      <Stat label="Tokens out">{offline && run.outputTokens === 0 ? "—" : formatTokens(run.outputTokens)}</Stat>
      <Stat label="Est. cost" title={run.costUsd === null ? "Not priced: offline, or no price known for this model" : `$${run.costUsd}`}>
        {offline ? "$0" : formatCost(run.costUsd)}
      </Stat>
      <Stat label="Latency" title={offline ? "Wall time of the rules" : "Time spent in LLM calls, retries included"}>
        {formatDuration(run.latencyMs)}
      </Stat>
    </dl>
  );
}

function DetailsSection({ run }: { run: RunDetail }) {
  return (
    <DetailSection title="Details">
      <Facts>
        <Fact term="Status">
          <RunStateBadge run={run} />
        </Fact>
        <Fact term="Playbook">
          <Link href={`/playbooks/${run.playbookId}`} className="font-medium text-accent-ink hover:underline">
            {run.playbookName}
          </Link>
        </Fact>
        <Fact term="Queued">
          <ExactTime date={run.createdAt} />
        </Fact>
        <Fact term="Started">{run.startedAt ? <ExactTime date={run.startedAt} /> : <span className="text-ink-faint">not yet</span>}</Fact>
        <Fact term="Finished">
          {run.finishedAt ? <ExactTime date={run.finishedAt} /> : <span className="text-ink-faint">not yet</span>}
        </Fact>
        <Fact term="Run id">
          <span className="break-all font-mono text-xs text-ink-muted">{run.id}</span>
        </Fact>
      </Facts>
    </DetailSection>
  );
}

function isDeltaStatus(value: string): value is DeltaStatus {
  return value in STATE_META && value !== "stale";
}

function DeltaSection({ run }: { run: RunDetail }) {
  const delta = run.delta;
  return (
    <DetailSection title="Delta">
      {delta ? (
        <div className="flex flex-col gap-2">
          <div className="flex flex-wrap items-center gap-2 text-[13px]">
            {isDeltaStatus(delta.status) ? (
              <Badge tone={STATE_META[delta.status].tone}>{STATE_META[delta.status].label}</Badge>
            ) : (
              <Badge>{delta.status}</Badge>
            )}
            <span className="text-ink-muted">{plural(delta.operationCount, "operation")}</span>
          </div>
          <Link
            href={reviewHref(run.playbookId, { deltaId: delta.id, status: delta.status === "pending" ? undefined : "all" })}
            className="inline-flex items-center gap-1 text-[13px] font-medium text-accent-ink hover:underline"
          >
            {delta.status === "pending" ? "Review it in the queue" : "Open it in the queue"}{" "}
            <ArrowUpRight aria-hidden className="size-3.5" />
          </Link>
        </div>
      ) : (
        <p className="text-[13px] text-ink-muted">
          {run.status === "succeeded"
            ? run.role === "reflector"
              ? "None: the trace cited no bullet of the playbook, so there was nothing to tag."
              : "None: the curator proposed no change."
            : "None yet."}
        </p>
      )}
    </DetailSection>
  );
}

function TracesSection({ run }: { run: RunDetail }) {
  return (
    <DetailSection title="Traces" count={run.traceIds.length} flush>
      {run.traces.length === 0 ? (
        <p className="px-4 py-4 text-[13px] text-ink-muted sm:px-5">
          {run.role === "curator" && run.status !== "succeeded"
            ? "Known once the curator starts: it reads the reflections waiting then."
            : "No trace."}
        </p>
      ) : (
        <ul aria-label="Traces of this run" className="max-h-[28rem] divide-y divide-line overflow-y-auto">
          {run.traces.map((trace) => (
            <li key={trace.id} className="group relative px-4 py-2.5 transition-colors hover:bg-subtle/60 sm:px-5">
              <Link
                href={traceHref(trace.id)}
                className="line-clamp-2 text-[13px] leading-snug text-ink outline-none after:absolute after:inset-0 group-hover:text-accent-ink focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus"
              >
                {taskTitle(trace.task)}
              </Link>
              <div className="mt-1 flex items-center gap-2 text-xs text-ink-faint">
                <OutcomeBadge outcome={trace.outcome as TraceOutcome} />
                <RelativeTime date={trace.createdAt} />
              </div>
            </li>
          ))}
        </ul>
      )}
      {run.traces.length < run.traceIds.length ? (
        <p className="border-t border-line px-4 py-2 text-xs text-ink-faint sm:px-5">
          {run.traceIds.length - run.traces.length} of its traces were deleted since.
        </p>
      ) : null}
    </DetailSection>
  );
}

/** A curator run lists the reflections it read; a reflector run, the curator run that read it. */
function LinkedRunsSection({ run }: { run: RunDetail }) {
  if (run.role === "curator") {
    if (run.reflectionRunIds.length === 0) return null;
    return (
      <DetailSection title="Reflections read" count={run.reflectionRunIds.length}>
        <ul className="flex flex-wrap gap-1.5">
          {run.reflectionRunIds.map((id) => (
            <li key={id}>
              <Link
                href={runHref(id)}
                className="inline-flex h-6 items-center rounded-md border border-line bg-subtle/60 px-2 font-mono text-xs text-accent-ink hover:border-accent/50 hover:bg-accent-soft"
              >
                {shortId(id)}
              </Link>
            </li>
          ))}
        </ul>
      </DetailSection>
    );
  }
  return (
    <DetailSection title="Curation">
      {run.curatedByRunId ? (
        <p className="text-[13px] text-ink-muted">
          Read by curator run{" "}
          <Link href={runHref(run.curatedByRunId)} className="font-mono text-xs font-medium text-accent-ink hover:underline">
            {shortId(run.curatedByRunId)}
          </Link>
          .
        </p>
      ) : (
        <p className={cn("text-[13px]", run.status === "succeeded" ? "text-ink-muted" : "text-ink-faint")}>
          {run.status === "succeeded" ? "Waits for the next curator run." : "Curated once it has succeeded."}
        </p>
      )}
    </DetailSection>
  );
}

export function RunDetailSkeleton() {
  return (
    <LoadingStatus label="Loading the run…" className="pb-16">
      <div className="pb-5 pt-6">
        <DetailHeadingSkeleton crumbWidth="w-48" titleWidth="w-72" />
      </div>
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-4 xl:grid-cols-8">
        <Skeletons count={8} className="h-[58px] rounded-lg" />
      </div>
      <div className="mt-6 grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="flex flex-col gap-6">
          <Skeleton className="h-80 rounded-card" />
          <Skeleton className="h-64 rounded-card" />
        </div>
        <div className="flex flex-col gap-6">
          <Skeleton className="h-56 rounded-card" />
          <Skeleton className="h-28 rounded-card" />
        </div>
      </div>
    </LoadingStatus>
  );
}
