"use client";
// The four cards at the top of a playbook's Runs tab: reflector, curator, queue and provider, each
// with what waits and the buttons to run, pause or resume.
import { Bot, CirclePause, CirclePlay, ScanSearch } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { RoleGate } from "@/components/auth/role-gate";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { formatNumber, plural, pluralWord } from "@/components/ui/format";
import { MODE_LABELS } from "@/components/shared/run-labels";
import type { RunMode } from "@/server/playbooks/schemas";
import type { RunsStatus } from "@/server/runs/schemas";
import { runsHref } from "./runs-url";
import { activeCount } from "./status-polling";
import { useCurateNow, useReflectNow, useSetPaused } from "./use-run-actions";

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

export function ReflectorCard({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
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

export function CuratorCard({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
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

export function QueueCard({ playbookId, status }: { playbookId: string; status: RunsStatus }) {
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

export function ProviderCard({ status }: { status: RunsStatus }) {
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
