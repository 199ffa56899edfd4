"use client";
// A playbook's Runs tab: how its reflector and curator stand (provider, circuit breaker, pause,
// budgets, queue, what waits) with the buttons to run them now, how an agent connects, then its
// latest runs and traces. The status is asked for again every two seconds while anything is queued
// or running, and every change refreshes the lists and the playbook (counters, pending deltas).
import { useQuery, useQueryClient, useSuspenseQuery } from "@tanstack/react-query";
import { ArrowRight, Bot, CirclePause, CirclePlay, ScanSearch } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, type ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { RoleGate } from "@/components/auth/role-gate";
import { useCan } from "@/components/auth/session-context";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Notice } from "@/components/ui/notice";
import { Skeleton } from "@/components/ui/skeleton";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { TableSkeleton } from "@/components/ui/data-table";
import { DetailSection } from "@/components/ui/detail-parts";
import { tracesHref } from "@/components/shared/trace-url";
import { TracesTable } from "@/components/shared/traces-table";
import { useHydrated } from "@/components/ui/use-hydrated";
import { formatNumber, plural, pluralWord } from "@/components/ui/format";
import type { RunMode } from "@/server/playbooks/schemas";
import type { RunsStatus } from "@/server/runs/schemas";
import { BudgetMeter } from "./budget-meter";
import { ConnectAgent } from "./connect-agent";
import { isActive, MODE_LABELS } from "@/components/shared/run-labels";
import { RunsTable } from "./runs-table";
import { playbookRunsInputs, runsHref } from "./runs-url";
import { StudioBudgetButton } from "./studio-budget-dialog";
import { useCurateNow, useReflectNow, useSetPaused } from "./use-run-actions";

const ACTIVE_POLL_MS = 2_000;
const IDLE_POLL_MS = 15_000;

function activeCount(status: RunsStatus): number {
  return status.queue.queued + status.queue.running;
}

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

/** "14:05" in the reader's time zone once the page runs in the browser; UTC before that. */
function ClockTime({ date }: { date: Date }) {
  const hydrated = useHydrated();
  const text = hydrated
    ? date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" })
    : `${date.toISOString().slice(11, 16)} UTC`;
  return <time dateTime={date.toISOString()}>{text}</time>;
}

function StatusNotices({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
  const setPaused = useSetPaused();
  const { circuit } = status;
  return (
    <>
      {circuit.state === "open" ? (
        <Notice
          tone="danger"
          title={
            <>
              Runs are paused: the provider failed {plural(circuit.consecutiveFailures, "time")}
              {circuit.reopensAt ? (
                <>
                  ; they resume at <ClockTime date={circuit.reopensAt} />
                </>
              ) : null}
            </>
          }
        >
          The circuit breaker stops calls to a failing provider for a while. Nothing is lost: queued runs wait, and new traces are stored.
          {circuit.lastError ? (
            <span className="mt-2 block rounded-md bg-surface/70 px-2.5 py-1.5 font-mono text-xs text-rose-950">
              Last error: {circuit.lastError}
            </span>
          ) : null}
        </Notice>
      ) : circuit.state === "half_open" ? (
        <Notice tone="info" title="Trying the provider again">
          After {formatNumber(circuit.consecutiveFailures)} failures the breaker lets one run through to see whether the provider has
          recovered.
        </Notice>
      ) : null}
      {status.paused ? (
        <Notice
          tone="warning"
          title="Runs of this playbook are paused"
          actions={
            <RoleGate action="run.start">
              <Button
                size="sm"
                variant="secondary"
                disabled={setPaused.isPending}
                onClick={() => setPaused.mutate({ playbookId, paused: false })}
              >
                <CirclePlay aria-hidden /> Resume runs
              </Button>
            </RoleGate>
          }
        >
          Queued runs wait until you resume; agents can still send traces, and they are kept.
        </Notice>
      ) : null}
    </>
  );
}

const MODE_TONES: Record<RunMode, BadgeTone> = { auto: "green", manual: "blue", off: "gray" };

function Card({
  title,
  icon,
  badge,
  children,
  action,
}: {
  title: string;
  icon?: ReactNode;
  badge?: ReactNode;
  children: ReactNode;
  action?: ReactNode;
}) {
  return (
    <section aria-label={title} className="flex flex-col rounded-card border border-line bg-surface p-4 shadow-card">
      <div className="flex items-center gap-2">
        {icon ? (
          <span className="text-ink-faint [&_svg]:size-4" aria-hidden>
            {icon}
          </span>
        ) : null}
        <h3 className="text-sm font-semibold text-ink">{title}</h3>
        {badge ? <div className="ml-auto">{badge}</div> : null}
      </div>
      <div className="mt-3 flex flex-1 flex-col gap-1.5">{children}</div>
      {action ? <div className="mt-4 flex flex-wrap gap-2">{action}</div> : null}
    </section>
  );
}

function BigNumber({ value, children }: { value: ReactNode; children: ReactNode }) {
  return (
    <p className="text-[13px] text-ink-muted">
      <span className="mr-0.5 text-2xl font-semibold tabular-nums tracking-tight text-ink">{value}</span> {children}
    </p>
  );
}

function ModeBadge({ mode }: { mode: RunMode }) {
  return <Badge tone={MODE_TONES[mode]}>{MODE_LABELS[mode]}</Badge>;
}

function SettingsLink({ playbookId, children }: { playbookId: string; children: ReactNode }) {
  return (
    <Link href={`/playbooks/${playbookId}/settings`} className="font-medium text-accent-ink hover:underline">
      {children}
    </Link>
  );
}

function ReflectorCard({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
  const reflect = useReflectNow();
  const off = status.reflectorMode === "off";
  // Reflect now queues the traces not reflected yet whose runs are not queued already (the server
  // never reflects a trace twice); while runs work, most of the waiting traces are theirs.
  const busy = activeCount(status) > 0;
  const ready = !off && status.unreflected > 0;
  return (
    <Card
      title="Reflector"
      icon={<ScanSearch />}
      badge={<ModeBadge mode={status.reflectorMode} />}
      action={
        <RoleGate action="run.start">
          <Button
            variant={ready && !busy ? "primary" : "secondary"}
            disabled={!ready || reflect.isPending}
            onClick={() => reflect.mutate({ playbookId })}
          >
            <ScanSearch aria-hidden /> {reflect.isPending ? "Queueing…" : "Reflect now"}
          </Button>
        </RoleGate>
      }
    >
      <BigNumber value={formatNumber(status.unreflected)}>
        {pluralWord(status.unreflected, "trace not reflected yet", "traces not reflected yet")}
      </BigNumber>
      <p className="text-xs leading-relaxed text-ink-faint">
        {busy && ready ? (
          `${plural(activeCount(status), "run is", "runs are")} queued or running; Reflect now adds only the traces they do not cover.`
        ) : status.reflectorMode === "auto" ? (
          "Each trace is reflected as it arrives."
        ) : status.reflectorMode === "manual" ? (
          "Traces wait until someone presses Reflect now."
        ) : (
          <>
            Off in the <SettingsLink playbookId={playbookId}>settings</SettingsLink>: traces are kept, never reflected.
          </>
        )}
      </p>
    </Card>
  );
}

function CuratorCard({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
  const curate = useCurateNow();
  const off = status.curatorMode === "off";
  const share = Math.min(1, status.uncurated / status.curatorFrequency);
  return (
    <Card
      title="Curator"
      icon={<Bot />}
      badge={<ModeBadge mode={status.curatorMode} />}
      action={
        <RoleGate action="run.start">
          <Button
            variant={status.uncurated > 0 && !off ? "primary" : "secondary"}
            disabled={off || status.uncurated === 0 || curate.isPending}
            onClick={() => curate.mutate({ playbookId })}
            title={status.uncurated === 0 ? "No reflection waits for the curator." : undefined}
          >
            <Bot aria-hidden /> {curate.isPending ? "Queueing…" : "Curate now"}
          </Button>
        </RoleGate>
      }
    >
      {status.curatorMode === "auto" ? (
        <>
          <p className="text-[13px] text-ink-muted">
            <span className="mr-0.5 text-2xl font-semibold tabular-nums tracking-tight text-ink">{formatNumber(status.uncurated)}</span> of{" "}
            {formatNumber(status.curatorFrequency)} reflections until the next curation
          </p>
          <div
            role="meter"
            aria-label="Reflections until the next curation"
            aria-valuemin={0}
            aria-valuemax={status.curatorFrequency}
            aria-valuenow={Math.min(status.uncurated, status.curatorFrequency)}
            className="h-1.5 overflow-hidden rounded-full bg-line"
          >
            <div className="h-full rounded-full bg-accent transition-[width]" style={{ width: `${share * 100}%` }} />
          </div>
        </>
      ) : (
        <BigNumber value={formatNumber(status.uncurated)}>
          {pluralWord(status.uncurated, "reflection waits for the curator", "reflections wait for the curator")}
        </BigNumber>
      )}
      <p className="text-xs leading-relaxed text-ink-faint">
        {status.curatorMode === "auto" ? (
          "It proposes a delta for review; nothing changes until a person approves."
        ) : status.curatorMode === "manual" ? (
          "It runs only when someone presses Curate now."
        ) : (
          <>
            Off in the <SettingsLink playbookId={playbookId}>settings</SettingsLink>: reflections only update counters.
          </>
        )}
      </p>
    </Card>
  );
}

function QueueCard({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
  const setPaused = useSetPaused();
  const { queued, running, failed } = status.queue;
  return (
    <Card
      title="Queue"
      badge={
        status.paused ? (
          <Badge tone="amber">Paused</Badge>
        ) : activeCount(status) > 0 ? (
          <Badge tone="blue">Working</Badge>
        ) : (
          <Badge tone="gray">Idle</Badge>
        )
      }
      action={
        <RoleGate action="run.start">
          <Button
            variant="secondary"
            disabled={setPaused.isPending}
            onClick={() => setPaused.mutate({ playbookId, paused: !status.paused })}
          >
            {status.paused ? (
              <>
                <CirclePlay aria-hidden /> Resume runs
              </>
            ) : (
              <>
                <CirclePause aria-hidden /> Pause runs
              </>
            )}
          </Button>
        </RoleGate>
      }
    >
      <dl className="grid grid-cols-3 gap-2 text-center">
        <QueueCount label="Queued" value={queued} />
        <QueueCount label="Running" value={running} />
        <QueueCount
          label="Failed"
          value={failed}
          tone={failed > 0 ? "text-danger" : undefined}
          href={failed > 0 ? runsHref({ playbookId, status: "failed" }) : undefined}
        />
      </dl>
      <QueueByRole queue={status.queue} />
    </Card>
  );
}

/** "Reflector: 40 queued, 2 running · Curator: 1 queued": what the counts above are made of. */
function QueueByRole({ queue }: { queue: RunsStatus["queue"] }) {
  const parts = (["reflector", "curator"] as const)
    .map((role) => {
      const counts = queue[role];
      const shown = (["queued", "running", "failed"] as const)
        .filter((state) => counts[state] > 0)
        .map((state) => `${formatNumber(counts[state])} ${state}`);
      return shown.length === 0 ? null : `${role === "reflector" ? "Reflector" : "Curator"}: ${shown.join(", ")}`;
    })
    .filter((part) => part !== null);
  if (parts.length === 0) return null;
  return (
    <p className="mt-2 text-xs text-ink-muted" data-testid="queue-by-role">
      {parts.join(" · ")}
    </p>
  );
}

function QueueCount({ label, value, tone, href }: { label: string; value: number; tone?: string; href?: string }) {
  const number = (
    <span className={cn("text-2xl font-semibold tabular-nums tracking-tight", tone ?? (value === 0 ? "text-ink-faint" : "text-ink"))}>
      {formatNumber(value)}
    </span>
  );
  return (
    <div className="flex flex-col-reverse rounded-lg bg-subtle/60 px-2 py-2">
      <dt className="text-xs text-ink-muted">{label}</dt>
      <dd>
        {href ? (
          <Link href={href} className="hover:underline" aria-label={`${value} failed: see them`}>
            {number}
          </Link>
        ) : (
          number
        )}
      </dd>
    </div>
  );
}

function ProviderCard({ status }: { status: RunsStatus }) {
  const { provider, circuit } = status;
  const circuitMeta: Record<RunsStatus["circuit"]["state"], { label: string; tone: BadgeTone }> = {
    closed: { label: "Healthy", tone: "green" },
    open: { label: "Circuit open", tone: "red" },
    half_open: { label: "Testing", tone: "amber" },
  };
  const models =
    provider.reflectorModel === provider.curatorModel ? provider.reflectorModel : `${provider.reflectorModel} / ${provider.curatorModel}`;
  return (
    <Card
      title="Provider"
      badge={
        provider.name === "offline" ? (
          <Badge tone="neutral">offline</Badge>
        ) : (
          <Badge tone={circuitMeta[circuit.state].tone}>{circuitMeta[circuit.state].label}</Badge>
        )
      }
    >
      {provider.name === "offline" ? (
        <>
          <p className="text-sm font-medium text-ink">Offline (rule-based, no LLM)</p>
          <p className="text-xs leading-relaxed text-ink-faint">
            No API key is set, so runs use deterministic rules: tags from the outcome, lessons from errors and failed tests. Set
            OPENAI_API_KEY (and OPENAI_BASE_URL for another compatible server) to use a model.
          </p>
        </>
      ) : (
        <>
          <p className="break-words text-sm font-medium text-ink">
            OpenAI-compatible: <span className="font-mono text-[13px]">{models}</span> at{" "}
            <span className="font-mono text-[13px]">{provider.baseUrl ?? "api.openai.com"}</span>
          </p>
          {provider.reflectorModel !== provider.curatorModel ? (
            <p className="text-xs text-ink-faint">Reflector model first, curator model second.</p>
          ) : null}
          {circuit.consecutiveFailures > 0 && circuit.state === "closed" ? (
            <p className="text-xs text-amber-900">{plural(circuit.consecutiveFailures, "failed call")} in a row.</p>
          ) : null}
        </>
      )}
    </Card>
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

function ListHeaderLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className="inline-flex items-center gap-1 text-[13px] font-medium text-accent-ink hover:underline">
      {children} <ArrowRight aria-hidden className="size-3.5" />
    </Link>
  );
}

function RecentRuns({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const query = useQuery({
    ...trpc.runs.list.queryOptions(playbookRunsInputs(playbookId).runs),
    refetchInterval: (q) => (q.state.data?.items.some(isActive) ? ACTIVE_POLL_MS : false),
  });
  const total = query.data?.total ?? 0;
  return (
    <section aria-labelledby="recent-runs" className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <h3 id="recent-runs" className="text-sm font-semibold text-ink">
          Latest runs {query.data ? <span className="font-normal tabular-nums text-ink-faint">({formatNumber(total)})</span> : null}
        </h3>
        {total > 0 ? (
          <div className="ml-auto">
            <ListHeaderLink href={runsHref({ playbookId })}>All runs of this playbook</ListHeaderLink>
          </div>
        ) : null}
      </div>
      {query.isPending ? (
        <TableSkeleton label="Loading runs…" rows={3} />
      ) : query.isError ? (
        <Notice tone="danger" compact>
          The runs could not be loaded. {query.error.message}
        </Notice>
      ) : query.data.items.length === 0 ? (
        <p className="rounded-card border border-dashed border-line-strong bg-surface px-5 py-6 text-center text-sm text-ink-muted">
          No runs yet. A reflector run starts for every trace an agent reports; connect one below.
        </p>
      ) : (
        <RunsTable items={query.data.items} showPlaybook={false} virtual={false} />
      )}
    </section>
  );
}

function RecentTraces({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.traces.list.queryOptions(playbookRunsInputs(playbookId).traces));
  return (
    <section aria-labelledby="recent-traces" className="flex flex-col gap-3">
      <div className="flex items-center gap-3">
        <h3 id="recent-traces" className="text-sm font-semibold text-ink">
          Latest traces
        </h3>
        {query.data && query.data.items.length > 0 ? (
          <div className="ml-auto">
            <ListHeaderLink href={tracesHref({ playbookId })}>All traces of this playbook</ListHeaderLink>
          </div>
        ) : null}
      </div>
      {query.isPending ? (
        <TableSkeleton label="Loading traces…" rows={3} />
      ) : query.isError ? (
        <Notice tone="danger" compact>
          The traces could not be loaded. {query.error.message}
        </Notice>
      ) : query.data.items.length === 0 ? (
        <p className="rounded-card border border-dashed border-line-strong bg-surface px-5 py-6 text-center text-sm text-ink-muted">
          No traces yet. An agent sends one after each task; the request is below.
        </p>
      ) : (
        <TracesTable items={query.data.items} showPlaybook={false} virtual={false} />
      )}
    </section>
  );
}

export function PlaybookRunsSkeleton() {
  return (
    <div role="status" className="flex flex-col gap-6 pb-16">
      <span className="sr-only">Loading runs…</span>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2 xl:grid-cols-4">
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} className="h-44 rounded-card" />
        ))}
      </div>
      <Skeleton className="h-40 rounded-card" />
      <TableSkeleton label="Loading runs…" rows={4} />
    </div>
  );
}
