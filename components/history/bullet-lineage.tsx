"use client";
// A bullet's lineage in its detail sheet: the deltas that changed it or propose to, the traces that
// cited it (with outcome and time), and every version that changed it (what, who, when, why, linked
// to that version's diff).
import { useQuery } from "@tanstack/react-query";
import { ArrowRight } from "lucide-react";
import { useId } from "react";
import Link from "next/link";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Notice } from "@/components/ui/notice";
import { LoadingStatus, Skeletons } from "@/components/ui/skeleton";
import { TextDiff } from "@/components/ui/text-diff";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/components/ui/errors";
import { RelativeTime } from "@/components/ui/relative-time";
import { historyHref } from "@/components/ui/routes";
import { formatNumber } from "@/components/ui/format";
import { TraceLine } from "@/components/shared/trace-badges";
import { OPERATION_LABELS, STATE_META } from "@/components/shared/delta-labels";
import { ItsDeltaLink } from "@/components/shared/its-delta-link";
import { reviewHref } from "@/components/shared/review-url";
import type { BulletLineage as BulletLineageData, LineageDelta, LineageEntry, LineageKind } from "@/server/history/schemas";
import type { SectionSummary } from "@/server/playbooks/schemas";

const KIND_META: Record<LineageKind, { label: string; tone: BadgeTone }> = {
  added: { label: "Added", tone: "green" },
  edited: { label: "Edited", tone: "blue" },
  moved: { label: "Moved", tone: "accent" },
  reordered: { label: "Reordered", tone: "neutral" },
  archived: { label: "Archived", tone: "red" },
  merged_into: { label: "Merged away", tone: "red" },
  restored: { label: "Restored", tone: "green" },
  absorbed: { label: "Absorbed others", tone: "accent" },
  counters: { label: "Counters", tone: "neutral" },
  pinned: { label: "Pinned", tone: "amber" },
  unpinned: { label: "Unpinned", tone: "neutral" },
};

export function BulletLineage({
  playbookId,
  bulletId,
  sections,
}: {
  playbookId: string;
  bulletId: string;
  /** The playbook's sections now, to name the ones a move went between. */
  sections: readonly SectionSummary[];
}) {
  const trpc = useTRPC();
  const headingId = useId();
  const query = useQuery(trpc.history.lineage.queryOptions({ playbookId, bulletId }));
  const sectionName = (id: string) => sections.find((section) => section.id === id)?.name ?? "a removed section";

  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3">
      <h3 id={headingId} className="text-[13px] font-medium text-ink-faint">
        History
      </h3>
      {query.isPending ? (
        <LoadingStatus label="Loading the history…" className="flex flex-col gap-3">
          <Skeletons count={2} className="h-16 w-full rounded-lg" />
        </LoadingStatus>
      ) : query.isError ? (
        <Notice tone="danger" compact>
          {errorMessage(query.error)}
        </Notice>
      ) : (
        <>
          <DeltaLinks deltas={query.data.deltas} playbookId={playbookId} />
          <CitingTraces citedBy={query.data.citedBy} />
          <h4 className="text-[13px] font-medium text-ink-faint">Versions</h4>
          <ol className="flex flex-col">
            {[...query.data.entries].reverse().map((entry) => (
              <LineageItem key={entry.version} entry={entry} playbookId={playbookId} sectionName={sectionName} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function LineageItem({ entry, playbookId, sectionName }: { entry: LineageEntry; playbookId: string; sectionName: (id: string) => string }) {
  const { before, after } = entry;
  return (
    <li className="relative border-l border-line pb-4 pl-4 last:pb-0">
      <span
        aria-hidden
        className="absolute -left-[4.5px] top-1.5 size-2 rounded-full border-2 border-surface bg-line-strong ring-1 ring-line-strong"
      />
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[13px]">
        <Link
          href={historyHref(playbookId, { from: Math.max(1, entry.version - 1), to: entry.version })}
          className="font-semibold tabular-nums text-accent-ink hover:underline"
          aria-label={`Version ${entry.version}: see its changes`}
        >
          v{entry.version}
        </Link>
        {entry.kinds.map((kind) => (
          <Badge key={kind} tone={KIND_META[kind].tone}>
            {KIND_META[kind].label}
          </Badge>
        ))}
        <span className="text-ink-muted">{entry.author}</span>
        <RelativeTime date={entry.createdAt} className="text-xs text-ink-faint" />
        {entry.deltaId && entry.deltaOrigin !== "rollback" ? (
          <ItsDeltaLink playbookId={playbookId} deltaId={entry.deltaId} className="ml-auto text-xs" />
        ) : null}
      </div>
      {entry.reason ? <p className="mt-1 line-clamp-2 text-xs text-ink-muted">{entry.reason}</p> : null}
      <div className="mt-1.5 flex flex-col gap-1.5 text-[13px]">
        {entry.segments ? (
          <TextDiff segments={entry.segments} className="rounded-md border border-line bg-subtle/40 px-2.5 py-2 text-[13px]" />
        ) : !before && after ? (
          <p className="line-clamp-3 text-ink-muted">{after.content}</p>
        ) : null}
        {before && after && before.sectionId !== after.sectionId ? (
          <p className="flex flex-wrap items-center gap-1 text-ink-muted">
            {sectionName(before.sectionId)} <ArrowRight aria-label="to" className="size-3" />{" "}
            <span className="text-ink">{sectionName(after.sectionId)}</span>
          </p>
        ) : null}
        {before && after && (before.helpful !== after.helpful || before.harmful !== after.harmful || before.neutral !== after.neutral) ? (
          <p className="tabular-nums text-ink-muted">
            {(["helpful", "harmful", "neutral"] as const)
              .filter((key) => before[key] !== after[key])
              .map((key) => `${key} ${before[key]} → ${after[key]}`)
              .join(" · ")}
          </p>
        ) : null}
        {after?.status === "archived" && before?.status === "active" ? (
          <p className="text-ink-muted">
            {after.mergedInto ? `Merged into [${after.mergedInto}]` : `Archived${after.archivedReason ? `: ${after.archivedReason}` : ""}`}
          </p>
        ) : null}
        {entry.absorbed.length > 0 ? <p className="text-ink-muted">Absorbed {entry.absorbed.map((id) => `[${id}]`).join(", ")}</p> : null}
      </div>
    </li>
  );
}

/** Every delta that proposed or made a change to the bullet, newest first, each linked to the queue. */
function DeltaLinks({ deltas, playbookId }: { deltas: LineageDelta[]; playbookId: string }) {
  if (deltas.length === 0) return null;
  return (
    <div className="flex flex-col gap-1.5">
      <h4 className="text-[13px] font-medium text-ink-faint">Deltas that changed it or propose to ({deltas.length})</h4>
      <ul aria-label="Deltas" className="flex flex-col gap-1.5 rounded-lg border border-line bg-subtle/40 p-2.5">
        {deltas.map((delta) => (
          <li key={delta.deltaId} className="flex flex-wrap items-center gap-x-2 gap-y-1 text-[13px]">
            <Badge tone={STATE_META[delta.status].tone}>{STATE_META[delta.status].label}</Badge>
            <span className="text-ink-muted">
              {delta.operations.map((op) => OPERATION_LABELS[op.type].toLowerCase()).join(", ") || "change"} by {delta.author}
              {delta.appliedVersion !== null ? <span className="tabular-nums"> · v{delta.appliedVersion}</span> : null}
            </span>
            <RelativeTime date={delta.createdAt} className="text-xs text-ink-faint" />
            <Link
              href={reviewHref(playbookId, { deltaId: delta.deltaId, status: delta.status === "pending" ? "pending" : "all" })}
              className="ml-auto text-xs font-medium text-accent-ink hover:underline"
            >
              {delta.status === "pending" ? "Review" : "Open"}
              <span className="sr-only"> the delta by {delta.author}</span>
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The latest traces whose agent cited the bullet, with their outcome and time, linked to each trace. */
function CitingTraces({ citedBy }: { citedBy: BulletLineageData["citedBy"] }) {
  const { traces, total } = citedBy;
  return (
    <div className="flex flex-col gap-1.5">
      <h4 className="text-[13px] font-medium text-ink-faint">Traces that cited it {total > 0 ? `(${formatNumber(total)})` : ""}</h4>
      {traces.length === 0 ? (
        <p className="text-[13px] text-ink-faint">No trace has cited it yet.</p>
      ) : (
        <ul aria-label="Traces that cited it" className="flex flex-col gap-1.5 rounded-lg border border-line bg-subtle/40 p-2.5">
          {traces.map((trace) => (
            <TraceLine key={trace.id} trace={trace} className="text-[13px]" />
          ))}
          {total > traces.length ? (
            <li className="text-xs text-ink-faint">
              The latest {traces.length} of {formatNumber(total)}.
            </li>
          ) : null}
        </ul>
      )}
    </div>
  );
}
