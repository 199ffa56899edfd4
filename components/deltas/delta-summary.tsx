// A delta's detail around its operations: above them, what it is (origin, state, title, when);
// below them, why (the rationale), how sure, on which version, the evidence and, once decided, the
// decision. The operations come first because they are what a reviewer decides on.
import { ExternalLink } from "lucide-react";
import Link from "next/link";
import { ExactTime, RelativeTime } from "@/components/ui/relative-time";
import { formatConfidence, plural, shortId } from "@/components/ui/format";
import { BreakableName } from "@/components/ui/breakable-name";
import { Fact, Facts } from "@/components/ui/detail-parts";
import { historyHref, runHref } from "@/components/ui/routes";
import { TraceLine } from "@/components/shared/trace-badges";
import { ROLE_META, RUN_STATUS_LABELS } from "@/components/shared/run-labels";
import type { DeltaView } from "@/server/deltas/schemas";
import { FlagBadges, OriginBadge, StateBadge } from "./delta-badges";
import { deltaTitle } from "@/components/shared/delta-labels";

export function DeltaHeading({ delta, showPlaybook, headingId }: { delta: DeltaView; showPlaybook: boolean; headingId?: string }) {
  return (
    <div>
      <div className="flex flex-wrap items-center gap-1.5">
        <OriginBadge origin={delta.origin} />
        <StateBadge delta={delta} />
        <FlagBadges delta={delta} />
        <span className="ml-auto font-mono text-xs text-ink-faint" title={delta.id}>
          Δ {shortId(delta.id)}
        </span>
      </div>
      <h2 id={headingId} tabIndex={-1} className="mt-2 text-lg font-semibold tracking-tight text-ink focus:outline-none">
        {deltaTitle(delta)}
      </h2>
      <p className="mt-0.5 text-[13px] text-ink-muted">
        Proposed <RelativeTime date={delta.createdAt} />
        {delta.origin === "pruning" || delta.origin === "reflector" ? <> by {delta.author}</> : null}
        {showPlaybook ? (
          <>
            {" "}
            to{" "}
            <Link href={`/playbooks/${delta.playbookId}`} className="font-medium text-ink hover:underline">
              {delta.playbookName}
            </Link>
          </>
        ) : null}
        {" · "}
        {plural(delta.counts.total, "operation")}
      </p>
    </div>
  );
}

export function DeltaFacts({ delta }: { delta: DeltaView }) {
  const behind = delta.currentVersion - delta.baseVersion;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h3 className="text-sm font-semibold text-ink">Why</h3>
        {delta.rationale ? (
          <p className="mt-1 whitespace-pre-wrap break-words text-sm leading-relaxed text-ink">{delta.rationale}</p>
        ) : (
          <p className="mt-1 text-sm italic text-ink-faint">No rationale given.</p>
        )}
      </div>

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
                · the playbook is at <span className="font-medium tabular-nums text-ink">v{delta.currentVersion}</span> (
                {plural(behind, "version")} later)
              </span>
            ) : (
              <span className="text-ink-muted"> · still the current version</span>
            )
          ) : null}
        </Fact>
        <Evidence delta={delta} />
        {delta.status === "pending" && delta.reviewNote ? (
          <Fact term="Note">
            <p className="whitespace-pre-wrap break-words text-ink-muted">{delta.reviewNote}</p>
          </Fact>
        ) : null}
        {delta.status !== "pending" ? <Decision delta={delta} /> : null}
      </Facts>
    </div>
  );
}

/** "14 traces · 15 runs", opened on demand: each stored trace with its task and outcome, each run with its role. */
function Evidence({ delta }: { delta: DeltaView }) {
  const { traceIds, runIds, links, notes } = delta.evidence;
  if (traceIds.length === 0 && runIds.length === 0 && links.length === 0 && !notes) {
    return (
      <Fact term="Evidence">
        <span className="text-ink-faint">none attached</span>
      </Fact>
    );
  }
  const stored = new Set([...delta.evidenceTraces.map((trace) => trace.id), ...delta.evidenceRuns.map((run) => run.id)]);
  const otherIds = [...traceIds, ...runIds].filter((id) => !stored.has(id));
  const counts = [
    traceIds.length > 0 ? plural(traceIds.length, "trace") : null,
    runIds.length > 0 ? plural(runIds.length, "run") : null,
    links.length > 0 ? plural(links.length, "link") : null,
  ].filter(Boolean);
  return (
    <>
      {counts.length > 0 ? (
        <Fact term="Evidence">
          <details className="group">
            <summary className="cursor-pointer select-none font-medium text-accent-ink hover:underline">{counts.join(" · ")}</summary>
            <div className="mt-2 flex flex-col gap-3">
              {delta.evidenceTraces.length > 0 ? (
                <ul aria-label="Evidence traces" className="flex flex-col gap-1.5">
                  {delta.evidenceTraces.map((trace) => (
                    <TraceLine key={trace.id} trace={trace} />
                  ))}
                </ul>
              ) : null}
              {delta.evidenceRuns.length > 0 ? (
                <ul aria-label="Evidence runs" className="flex flex-wrap gap-1.5">
                  {delta.evidenceRuns.map((run) => (
                    <li key={run.id}>
                      <Link
                        href={runHref(run.id)}
                        className="inline-flex h-6 items-center gap-1 rounded-md border border-line bg-subtle/60 px-2 text-xs text-accent-ink hover:border-accent/50 hover:bg-accent-soft"
                      >
                        {ROLE_META[run.role].label} run <span className="font-mono">{shortId(run.id)}</span>
                        <span className="text-ink-faint">· {RUN_STATUS_LABELS[run.status].toLowerCase()}</span>
                      </Link>
                    </li>
                  ))}
                </ul>
              ) : null}
              {otherIds.length > 0 ? (
                <p className="text-xs text-ink-muted">
                  Not stored here (the agent&apos;s own ids):{" "}
                  <span className="font-mono">
                    {otherIds.map((id, index) => (
                      <span key={id}>
                        {index > 0 ? ", " : null}
                        <BreakableName text={id} />
                      </span>
                    ))}
                  </span>
                </p>
              ) : null}
              {links.length > 0 ? (
                <ul className="flex flex-col gap-1">
                  {links.map((link) => (
                    <li key={link.url}>
                      <a
                        href={link.url}
                        target="_blank"
                        rel="noreferrer"
                        className="inline-flex items-center gap-1 text-accent-ink hover:underline"
                      >
                        {link.label}
                        <ExternalLink aria-hidden className="size-3" />
                        <span className="sr-only">(opens in a new tab)</span>
                      </a>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          </details>
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
          <Link href={historyHref(delta.playbookId, { to: delta.appliedVersion })} className="font-medium text-accent-ink hover:underline">
            version {delta.appliedVersion}
          </Link>
          <span className="text-ink-muted"> · see the change in the history</span>
        </Fact>
      ) : null}
    </>
  );
}
