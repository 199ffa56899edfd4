// The top of a delta's detail: who proposed it, why, how sure, on which version, the evidence,
// and, once decided, the decision.
import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { ExactTime, RelativeTime } from "@/components/ui/relative-time";
import { formatConfidence, plural, shortId } from "@/components/ui/format";
import { Fact, Facts } from "@/components/ui/detail-parts";
import { historyHref } from "@/components/ui/routes";
import type { DeltaView } from "@/server/deltas/schemas";
import { FlagBadges, OriginBadge, StateBadge } from "./delta-badges";

export function DeltaSummary({ delta, showPlaybook }: { delta: DeltaView; showPlaybook: boolean }) {
  const behind = delta.currentVersion - delta.baseVersion;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <div className="flex flex-wrap items-center gap-1.5">
          <OriginBadge origin={delta.origin} />
          <StateBadge delta={delta} />
          <FlagBadges delta={delta} />
          <span className="ml-auto font-mono text-xs text-ink-faint" title={delta.id}>
            Δ {shortId(delta.id)}
          </span>
        </div>
        <h2 className="mt-2 text-lg font-semibold tracking-tight text-ink">
          {plural(delta.counts.total, "operation")} from {delta.author}
        </h2>
        <p className="mt-0.5 text-[13px] text-ink-muted">
          Proposed <RelativeTime date={delta.createdAt} />
          {showPlaybook ? (
            <>
              {" "}
              to{" "}
              <Link href={`/playbooks/${delta.playbookId}`} className="font-medium text-ink hover:underline">
                {delta.playbookName}
              </Link>
            </>
          ) : null}
        </p>
      </div>

      {delta.rationale ? (
        <p className="whitespace-pre-wrap break-words text-sm leading-relaxed text-ink">{delta.rationale}</p>
      ) : (
        <p className="text-sm italic text-ink-faint">No rationale given.</p>
      )}

      <Facts className="grid-cols-[7rem_minmax(0,1fr)] sm:grid-cols-[8rem_minmax(0,1fr)]">
        <Fact term="Confidence">
          {delta.confidence === null ? (
            <span className="text-ink-faint">not given</span>
          ) : (
            <span className="flex items-center gap-2">
              <span className="font-medium tabular-nums">{formatConfidence(delta.confidence)}</span>
              <span aria-hidden className="h-1.5 w-24 overflow-hidden rounded-full bg-line">
                <span className="block h-full rounded-full bg-accent" style={{ width: `${Math.round(delta.confidence * 100)}%` }} />
              </span>
            </span>
          )}
        </Fact>
        <Fact term="Version">
          Proposed on <span className="font-medium tabular-nums">v{delta.baseVersion}</span>
          {delta.status === "pending" ? (
            behind > 0 ? (
              <span className="text-ink-muted">
                {" "}
                · the playbook is at <span className="font-medium tabular-nums text-ink">v{delta.currentVersion}</span> ({plural(behind, "version")} later)
              </span>
            ) : (
              <span className="text-ink-muted"> · still the current version</span>
            )
          ) : null}
        </Fact>
        <Evidence delta={delta} />
        {delta.status !== "pending" ? <Decision delta={delta} /> : null}
      </Facts>
    </div>
  );
}

function Evidence({ delta }: { delta: DeltaView }) {
  const { traceIds, runIds, links, notes } = delta.evidence;
  if (traceIds.length === 0 && runIds.length === 0 && links.length === 0 && !notes) {
    return <Fact term="Evidence"><span className="text-ink-faint">none attached</span></Fact>;
  }
  return (
    <>
      {traceIds.length > 0 ? (
        <Fact term="Traces">
          <IdLinks ids={traceIds} base="/traces" />
        </Fact>
      ) : null}
      {runIds.length > 0 ? (
        <Fact term="Runs">
          <IdLinks ids={runIds} base="/runs" />
        </Fact>
      ) : null}
      {links.length > 0 ? (
        <Fact term="Links">
          <ul className="flex flex-col gap-1">
            {links.map((link) => (
              <li key={link.url}>
                <a href={link.url} target="_blank" rel="noreferrer" className="inline-flex items-center gap-1 text-accent-ink hover:underline">
                  {link.label}
                  <ExternalLink aria-hidden className="size-3" />
                  <span className="sr-only">(opens in a new tab)</span>
                </a>
              </li>
            ))}
          </ul>
        </Fact>
      ) : null}
      {notes ? (
        <Fact term="Notes">
          <p className="whitespace-pre-wrap break-words leading-relaxed text-ink-muted">{notes}</p>
        </Fact>
      ) : null}
    </>
  );
}

function IdLinks({ ids, base }: { ids: readonly string[]; base: string }) {
  return (
    <ul className="flex flex-wrap gap-1.5">
      {ids.map((id) => (
        <li key={id}>
          <a
            href={`${base}/${encodeURIComponent(id)}`}
            className="inline-flex h-6 items-center rounded-md border border-line bg-subtle/60 px-2 font-mono text-xs text-accent-ink hover:border-accent/50 hover:bg-accent-soft"
          >
            {id}
          </a>
        </li>
      ))}
    </ul>
  );
}

function Decision({ delta }: { delta: DeltaView }) {
  const verb = delta.status === "rejected" ? "Rejected" : delta.status === "auto_applied" ? "Auto-applied" : "Approved";
  return (
    <>
      <Fact term={verb}>
        <span>
          {delta.decidedBy ? <span className="font-medium">{delta.decidedBy}</span> : null}
          {delta.decidedAt ? (
            <span className="text-ink-muted">
              {delta.decidedBy ? " · " : ""}
              <ExactTime date={delta.decidedAt} />
            </span>
          ) : null}
        </span>
      </Fact>
      {delta.reviewNote ? (
        <Fact term={delta.status === "rejected" ? "Reason" : "Note"}>
          <p className="whitespace-pre-wrap break-words text-ink">{delta.reviewNote}</p>
        </Fact>
      ) : null}
      {delta.appliedVersion !== null ? (
        <Fact term="Applied as">
          <Link
            href={historyHref(delta.playbookId, { to: delta.appliedVersion })}
            className="font-medium text-accent-ink hover:underline"
          >
            version {delta.appliedVersion}
          </Link>
          <span className="text-ink-muted"> · see the change in the history</span>
        </Fact>
      ) : null}
    </>
  );
}
