"use client";
// One trace (/traces/[traceId]): what the agent was asked, how it reasoned, what it answered and
// what the environment said, and the bullets it cited (linked to the playbook). The runs that read
// it and the Reflect now button come from components/runs (trace-runs.tsx), which the page passes
// in: runs build on traces, so traces do not import runs.
import { useSuspenseQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { CounterBadges } from "@/components/ui/counter-badges";
import { Breadcrumb, DetailSection, Fact, Facts, jsonText } from "@/components/ui/detail-parts";
import { formatDuration, formatNumber, formatTokens, plural, pluralWord, shortId } from "@/components/ui/format";
import { ExactTime, RelativeTime } from "@/components/ui/relative-time";
import { bulletHref, versionHref } from "@/components/ui/routes";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { TextBlock } from "@/components/ui/text-block";
import { useTRPC } from "@/components/trpc/client";
import type { CitedBullet, TraceDetail } from "@/server/traces/schemas";
import { taskTitle } from "@/components/shared/trace-labels";
import { RedactionSection } from "./redaction-section";
import { tracesHref } from "@/components/shared/trace-url";
import { OutcomeBadge, ReflectedBadge } from "@/components/shared/trace-badges";

export function TraceDetailView({
  traceId,
  actions,
  runs,
}: {
  traceId: string;
  /** Buttons beside the copy button in the header (Reflect now). */
  actions: ReactNode;
  /** The section listing the runs that read the trace, between the cited bullets and the metadata. */
  runs: ReactNode;
}) {
  const trpc = useTRPC();
  const { data: trace } = useSuspenseQuery(trpc.traces.get.queryOptions({ traceId }));
  return (
    <div className="pb-16">
      <TraceHeader trace={trace} actions={actions} />
      <div className="grid grid-cols-1 items-start gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <div className="flex min-w-0 flex-col gap-6">
          <DetailSection title="Task">
            <TextBlock text={trace.task} label="task" mono={false} />
          </DetailSection>
          <DetailSection title="Reasoning">
            <TextBlock text={trace.reasoning} label="reasoning" empty="The agent sent no reasoning." />
          </DetailSection>
          <DetailSection title="Output">
            <TextBlock text={trace.output} label="output" empty="The agent sent no output." />
          </DetailSection>
          <FeedbackSection feedback={trace.feedback} />
        </div>
        <div className="flex min-w-0 flex-col gap-6">
          <DetailsSection trace={trace} />
          <RedactionSection trace={trace} />
          <CitedBulletsSection trace={trace} />
          {runs}
          <MetadataSection metadata={trace.metadata} />
        </div>
      </div>
    </div>
  );
}

function TraceHeader({ trace, actions }: { trace: TraceDetail; actions: ReactNode }) {
  return (
    <header className="flex flex-col gap-4 pb-6 pt-6 md:flex-row md:items-start md:justify-between">
      <div className="min-w-0">
        <Breadcrumb
          items={[
            { label: "Traces", href: "/traces" },
            { label: trace.playbookName, href: tracesHref({ playbookId: trace.playbookId }) },
            { label: trace.externalId ?? shortId(trace.id) },
          ]}
        />
        <h1 className="max-w-4xl break-words text-xl font-semibold tracking-tight text-ink sm:text-2xl">{taskTitle(trace.task)}</h1>
        <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1.5 text-[13px] text-ink-muted">
          <OutcomeBadge outcome={trace.outcome} />
          <ReflectedBadge reflectedAt={trace.reflectedAt} />
          {trace.variant ? <Badge tone="blue">Variant {trace.variant}</Badge> : null}
          {trace.redactions ? <Badge tone="amber">Redacted</Badge> : null}
          <span>
            Received <RelativeTime date={trace.createdAt} className="font-medium text-ink" />
          </span>
          <span>
            Playbook{" "}
            <Link href={`/playbooks/${trace.playbookId}`} className="font-medium text-ink hover:underline">
              {trace.playbookName}
            </Link>
          </span>
        </div>
      </div>
      <div className="flex shrink-0 flex-wrap gap-2">
        <CopyButton text={trace.id} label="Copy trace id" what="the trace id" />
        {actions}
      </div>
    </header>
  );
}

function DetailsSection({ trace }: { trace: TraceDetail }) {
  return (
    <DetailSection title="Details">
      <Facts>
        <Fact term="Outcome">
          <OutcomeBadge outcome={trace.outcome} />
        </Fact>
        <Fact term="Received">
          <ExactTime date={trace.createdAt} />
        </Fact>
        <Fact term="Reflected">
          {trace.reflectedAt ? <ExactTime date={trace.reflectedAt} /> : <span className="text-ink-faint">not yet</span>}
        </Fact>
        <Fact term="Duration">
          <span className="tabular-nums">{formatDuration(trace.durationMs)}</span>
        </Fact>
        <Fact term="Usage">
          {trace.inputTokens === null && trace.outputTokens === null ? (
            <span className="text-ink-faint">not reported</span>
          ) : (
            <span className="tabular-nums">
              {formatTokens(trace.inputTokens)} in · {formatTokens(trace.outputTokens)} out
            </span>
          )}
        </Fact>
        <Fact term="Variant">{trace.variant ?? <span className="text-ink-faint">none</span>}</Fact>
        <Fact term="Playbook version">
          {trace.playbookVersion !== null ? (
            <Link href={versionHref(trace.playbookId, trace.playbookVersion)} className="font-medium text-accent-ink hover:underline">
              v{trace.playbookVersion}
            </Link>
          ) : (
            <span className="text-ink-faint">not reported</span>
          )}
        </Fact>
        <Fact term="External id">
          {trace.externalId ? <span className="font-mono text-xs">{trace.externalId}</span> : <span className="text-ink-faint">none</span>}
        </Fact>
        <Fact term="Trace id">
          <span className="break-all font-mono text-xs text-ink-muted">{trace.id}</span>
        </Fact>
      </Facts>
    </DetailSection>
  );
}

const FEEDBACK_KEYS = ["groundTruth", "errors", "testResults", "notes"] as const;

function FeedbackSection({ feedback }: { feedback: Record<string, unknown> }) {
  const errors = Array.isArray(feedback.errors) ? feedback.errors.filter((e): e is string => typeof e === "string" && e.trim() !== "") : [];
  const text = (key: string) => (typeof feedback[key] === "string" ? (feedback[key] as string) : "");
  const others = Object.entries(feedback).filter(
    ([key, value]) => !(FEEDBACK_KEYS as readonly string[]).includes(key) && value !== null && value !== undefined,
  );
  const empty = !text("groundTruth") && errors.length === 0 && !text("testResults") && !text("notes") && others.length === 0;
  return (
    <DetailSection title="Feedback">
      {empty ? (
        <p className="text-sm italic text-ink-faint">
          No feedback reported. Without ground truth, errors or test results the reflector judges by the outcome alone.
        </p>
      ) : (
        <div className="flex flex-col gap-5">
          {text("groundTruth") ? (
            <FeedbackPart title="Ground truth">
              <TextBlock text={text("groundTruth")} label="ground truth" />
            </FeedbackPart>
          ) : null}
          {errors.length > 0 ? (
            <FeedbackPart title={`Errors (${errors.length})`}>
              <ul className="flex flex-col gap-1.5">
                {errors.map((error, index) => (
                  <li key={index} className="flex items-start gap-2 rounded-lg border border-rose-200 bg-danger-soft px-3 py-2">
                    <TriangleAlert aria-hidden className="mt-0.5 size-3.5 shrink-0 text-danger" />
                    <span className="min-w-0 whitespace-pre-wrap break-words font-mono text-[12.5px] leading-relaxed text-rose-950">
                      {error}
                    </span>
                  </li>
                ))}
              </ul>
            </FeedbackPart>
          ) : null}
          {text("testResults") ? (
            <FeedbackPart title="Test results">
              <TextBlock text={text("testResults")} label="test results" />
            </FeedbackPart>
          ) : null}
          {text("notes") ? (
            <FeedbackPart title="Notes">
              <TextBlock text={text("notes")} label="notes" mono={false} />
            </FeedbackPart>
          ) : null}
          {others.length > 0 ? (
            <FeedbackPart title="Other feedback">
              <TextBlock text={jsonText(Object.fromEntries(others))} label="other feedback" />
            </FeedbackPart>
          ) : null}
        </div>
      )}
    </DetailSection>
  );
}

function FeedbackPart({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-2">
      <h3 className="text-[13px] font-medium text-ink-faint">{title}</h3>
      {children}
    </div>
  );
}

function CitedBulletsSection({ trace }: { trace: TraceDetail }) {
  const missing = trace.citedBullets.filter((bullet) => !bullet.exists).length;
  return (
    <DetailSection title="Cited bullets" count={trace.citedBullets.length} flush>
      {trace.citedBullets.length === 0 ? (
        <p className="px-4 py-4 text-sm text-ink-muted sm:px-5">
          The agent cited no bullets, so the reflector has no counter to tag. Agents cite ids in their reasoning, like{" "}
          <code className="font-mono text-xs">[str-00001]</code>, or send <code className="font-mono text-xs">citedBulletIds</code>.
        </p>
      ) : (
        <>
          <ul aria-label="Cited bullets" className="divide-y divide-line">
            {trace.citedBullets.map((bullet) => (
              <CitedBulletItem key={bullet.externalId} bullet={bullet} playbookId={trace.playbookId} />
            ))}
          </ul>
          {missing > 0 ? (
            <p className="border-t border-line px-4 py-2.5 text-xs text-ink-muted sm:px-5">
              {plural(missing, "cited id is", "cited ids are")} not in the playbook (a typo of the agent, or a deleted bullet); the
              reflector ignores {pluralWord(missing, "it", "them")}.
            </p>
          ) : null}
        </>
      )}
    </DetailSection>
  );
}

function CitedBulletItem({ bullet, playbookId }: { bullet: CitedBullet; playbookId: string }) {
  if (!bullet.exists) {
    return (
      <li className="flex items-center gap-2 px-4 py-3 sm:px-5">
        <span className="font-mono text-xs font-medium text-ink-faint">[{bullet.externalId}]</span>
        <Badge tone="amber">Not in the playbook</Badge>
      </li>
    );
  }
  return (
    <li className="group relative px-4 py-3 transition-colors hover:bg-subtle/60 sm:px-5">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Link
          href={bulletHref(playbookId, bullet.externalId)}
          className="font-mono text-xs font-medium text-accent-ink outline-none after:absolute after:inset-0 hover:underline focus-visible:after:outline-2 focus-visible:after:-outline-offset-2 focus-visible:after:outline-focus"
        >
          [{bullet.externalId}]
        </Link>
        {bullet.status === "archived" ? <Badge tone="gray">Archived</Badge> : null}
        {bullet.sectionName ? <span className="truncate text-xs text-ink-faint">{bullet.sectionName}</span> : null}
      </div>
      {bullet.content ? <p className="mt-1 line-clamp-3 text-[13px] leading-relaxed text-ink">{bullet.content}</p> : null}
      <div className="mt-1.5">
        <CounterBadges
          helpful={bullet.helpful ?? 0}
          harmful={bullet.harmful ?? 0}
          neutral={bullet.neutral ?? 0}
          countersKnown={bullet.countersKnown ?? false}
        />
      </div>
    </li>
  );
}

function MetadataSection({ metadata }: { metadata: Record<string, unknown> }) {
  const entries = Object.entries(metadata);
  return (
    <DetailSection title="Metadata" count={entries.length}>
      {entries.length === 0 ? (
        <p className="text-sm text-ink-faint">The agent sent no metadata.</p>
      ) : (
        <Facts className="grid-cols-[minmax(0,8rem)_minmax(0,1fr)]">
          {entries.map(([key, value]) => (
            <Fact key={key} term={key}>
              {typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? (
                <span className="whitespace-pre-wrap">{typeof value === "number" ? formatNumber(value) : String(value)}</span>
              ) : (
                <pre className="whitespace-pre-wrap break-words font-mono text-xs text-ink-muted">{jsonText(value)}</pre>
              )}
            </Fact>
          ))}
        </Facts>
      )}
    </DetailSection>
  );
}

export function TraceDetailSkeleton() {
  return (
    <LoadingStatus label="Loading the trace…" className="pb-16">
      <div className="pb-6 pt-6">
        <Skeleton className="mb-2 h-3 w-48" />
        <Skeleton className="h-7 w-[36rem] max-w-full" />
        <Skeleton className="mt-2.5 h-5 w-96 max-w-full" />
      </div>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <div className="flex flex-col gap-6">
          {Array.from({ length: 3 }, (_, i) => (
            <div key={i} className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
              <div className="border-b border-line px-5 py-3.5">
                <Skeleton className="h-4 w-24" />
              </div>
              <div className="space-y-2 px-5 py-4">
                <Skeleton className="h-3.5 w-full" />
                <Skeleton className="h-3.5 w-5/6" />
                <Skeleton className="h-3.5 w-2/3" />
              </div>
            </div>
          ))}
        </div>
        <div className="flex flex-col gap-6">
          <Skeleton className="h-72 rounded-card" />
          <Skeleton className="h-48 rounded-card" />
        </div>
      </div>
    </LoadingStatus>
  );
}
