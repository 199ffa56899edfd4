"use client";
// The run side of a trace's page: the runs that read the trace and the Reflect now button. The
// trace page (app/(app)/traces/[traceId]) passes them into TraceDetailView. Both read the same
// traces.get query; while a run of the trace is queued or running, the list asks again every two
// seconds, which refreshes the whole page, and once it ends the runs, traces and playbook refetch.
import { useSuspenseQuery } from "@tanstack/react-query";
import { ScanSearch } from "lucide-react";
import Link from "next/link";
import { ItsDeltaLink } from "@/components/shared/its-delta-link";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { DetailSection } from "@/components/ui/detail-parts";
import { RelativeTime } from "@/components/ui/relative-time";
import { runHref } from "@/components/ui/routes";
import { useWhenSettled } from "@/components/ui/use-settled";
import { shortId } from "@/components/ui/format";
import { useTRPC } from "@/components/trpc/client";
import { isActive } from "@/components/shared/run-labels";
import { ProviderBadge, RoleLabel, RunStateBadge } from "./run-badges";
import { useInvalidateRuns, useReflectNow } from "./use-run-actions";

const POLL_MS = 2_000;

export function TraceRuns({ traceId }: { traceId: string }) {
  const trpc = useTRPC();
  const { data: trace } = useSuspenseQuery({
    ...trpc.traces.get.queryOptions({ traceId }),
    refetchInterval: (query) => (query.state.data?.runs.some(isActive) ? POLL_MS : false),
  });
  const invalidate = useInvalidateRuns();
  // A run of it finished: the playbook's counters, the run lists and the queue have changed.
  useWhenSettled(trace.runs.some(isActive), () => void invalidate());
  const { runs, playbookId } = trace;
  return (
    <DetailSection title="Runs" count={runs.length} flush>
      {runs.length === 0 ? (
        <p className="px-4 py-4 text-sm text-ink-muted sm:px-5">
          No run has read this trace yet. With the reflector on automatic it is queued as it arrives; otherwise use Reflect now.
        </p>
      ) : (
        <ul aria-label="Runs of this trace" className="divide-y divide-line">
          {runs.map((run) => (
            <li key={run.id} className="group relative flex flex-col gap-1.5 px-4 py-3 transition-colors hover:bg-subtle/60 sm:px-5">
              <div className="flex flex-wrap items-center gap-2">
                <Link
                  href={runHref(run.id)}
                  className="text-[13px] outline-none after:absolute after:inset-0 focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus"
                  aria-label={`${run.role === "reflector" ? "Reflector" : "Curator"} run ${shortId(run.id)}`}
                >
                  <RoleLabel role={run.role} />
                </Link>
                <RunStateBadge run={{ status: run.status, error: null }} />
                <RelativeTime date={run.createdAt} className="ml-auto text-xs text-ink-faint" />
              </div>
              <div className="flex flex-wrap items-center gap-2 text-xs text-ink-muted">
                <ProviderBadge provider={run.provider} model={run.model} />
                {run.deltaId ? <ItsDeltaLink playbookId={playbookId} deltaId={run.deltaId} className="relative z-10 ml-auto" /> : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </DetailSection>
  );
}

export function ReflectTraceButton({ traceId }: { traceId: string }) {
  const trpc = useTRPC();
  const { data: trace } = useSuspenseQuery(trpc.traces.get.queryOptions({ traceId }));
  const reflect = useReflectNow();
  const running = trace.runs.some((run) => run.role === "reflector" && isActive(run));
  // A trace is reflected once (the server's rule): its tags are observations and count once.
  const reflected = trace.reflectedAt !== null;
  return (
    <RoleGate action="run.start">
      <Button
        variant={reflected ? "secondary" : "primary"}
        disabled={reflect.isPending || running || reflected}
        onClick={() => reflect.mutate({ playbookId: trace.playbookId, traceIds: [trace.id] })}
        title={reflected ? "Reflected already: a trace is reflected once, so its tags count once." : undefined}
      >
        <ScanSearch aria-hidden />
        {reflect.isPending ? "Queueing…" : running ? "Reflecting…" : "Reflect now"}
      </Button>
    </RoleGate>
  );
}
