"use client";
// Runs as table rows: when, which role (a link to the run), the playbook, its state (and why it
// failed or waits), provider and model, tokens, cost, latency and its delta in the review queue.
import Link from "next/link";
import { cn } from "@/components/ui/cn";
import { RelativeTime } from "@/components/ui/relative-time";
import { ItsDeltaLink } from "@/components/shared/its-delta-link";
import { DataTable, ROW_LINK, type DataTableProps, type TableColumn } from "@/components/ui/data-table";
import type { RunListItem } from "@/server/runs/schemas";
import { formatCost, formatDuration, plural, shortId, tokenSummary } from "@/components/ui/format";
import { runHref } from "@/components/ui/routes";
import { ROLE_META } from "@/components/shared/run-labels";
import { ReasonText } from "./reason-text";
import { waitingReason } from "./run-record";
import { ProviderBadge, RunStateBadge } from "./run-badges";

const NUM = "lg:text-right tabular-nums";
const WIDE = "hidden lg:block";

const COLUMNS: TableColumn[] = [
  { key: "created", header: "Queued" },
  { key: "run", header: "Run" },
  { key: "playbook", header: "Playbook" },
  { key: "status", header: "Status" },
  { key: "provider", header: "Provider" },
  { key: "tokens", header: "Tokens", className: NUM },
  { key: "cost", header: "Est. cost", className: NUM },
  { key: "latency", header: "Latency", className: NUM },
  { key: "delta", header: "Delta" },
];

const GRID_WITH_PLAYBOOK = "lg:grid-cols-[6.5rem_minmax(0,1fr)_minmax(0,9rem)_6.5rem_minmax(0,10rem)_5rem_5.5rem_4.5rem_5.5rem]";
const GRID = "lg:grid-cols-[6.5rem_minmax(0,1fr)_6.5rem_minmax(0,10rem)_5rem_5.5rem_4.5rem_5.5rem]";

export function RunsTable({
  items,
  showPlaybook,
  ...rest
}: { items: readonly RunListItem[]; showPlaybook: boolean } & Omit<
  DataTableProps<RunListItem>,
  "label" | "columns" | "grid" | "items" | "getKey" | "renderCells"
>) {
  return (
    <DataTable
      label="Runs"
      columns={showPlaybook ? COLUMNS : COLUMNS.filter((column) => column.key !== "playbook")}
      grid={showPlaybook ? GRID_WITH_PLAYBOOK : GRID}
      items={items}
      getKey={(run) => run.id}
      estimateSize={62}
      renderCells={(run) => <RunCells run={run} showPlaybook={showPlaybook} />}
      {...rest}
    />
  );
}

/** What the row says under the run: why it failed or waits, else what it read. */
function runNote(run: RunListItem): { text: string; tone: "danger" | "warning" | "muted" } {
  if (run.status === "failed") return { text: run.error ?? "Failed without a reason.", tone: "danger" };
  if (run.status === "queued" && run.error) return { text: waitingReason(run.error), tone: "warning" };
  const traces = plural(run.traceCount, "trace");
  return { text: run.role === "reflector" ? `Reflects ${traces}` : `Curates ${traces}`, tone: "muted" };
}

function RunCells({ run, showPlaybook }: { run: RunListItem; showPlaybook: boolean }) {
  // The offline rules use no tokens: a dash says "not applicable" better than a zero.
  const offline = run.provider === "offline";
  const tokens = offline ? { total: "—", detail: "The offline rules use no tokens" } : tokenSummary(run.inputTokens, run.outputTokens);
  const note = runNote(run);
  const Icon = ROLE_META[run.role].icon;
  const finished = run.status === "succeeded" || run.status === "failed";
  const phoneFacts = finished
    ? [
        tokens.total !== "—" ? `${tokens.total} tokens` : null,
        run.costUsd !== null ? formatCost(run.costUsd) : null,
        formatDuration(run.latencyMs),
      ]
    : [];
  return (
    <>
      <div role="cell" className={cn(WIDE, "whitespace-nowrap text-[13px] text-ink-muted")}>
        <RelativeTime date={run.createdAt} />
      </div>
      <div role="cell" className="min-w-0">
        <Link
          href={runHref(run.id)}
          data-row-link
          className={cn(ROW_LINK, "inline-flex items-center gap-1.5 text-sm font-medium text-ink group-hover:text-accent-ink")}
        >
          <Icon aria-hidden className="size-3.5 shrink-0 text-ink-faint" />
          {ROLE_META[run.role].label}
          <span className="font-mono text-[11px] font-normal text-ink-faint">{shortId(run.id)}</span>
        </Link>
        <p
          className={cn(
            "mt-0.5 line-clamp-1 break-words text-xs",
            note.tone === "danger" ? "text-danger" : note.tone === "warning" ? "text-amber-900" : "text-ink-faint",
          )}
          title={note.text}
        >
          <ReasonText text={note.text} />
        </p>
      </div>
      {showPlaybook ? (
        <div role="cell" className={cn(WIDE, "truncate text-[13px] text-ink-muted")} title={run.playbookName}>
          {run.playbookName}
        </div>
      ) : null}
      <div role="cell" className={WIDE}>
        <RunStateBadge run={run} />
      </div>
      <div role="cell" className={cn(WIDE, "min-w-0")}>
        <ProviderBadge provider={run.provider} model={run.model} />
      </div>
      <div role="cell" className={cn(WIDE, NUM, "text-[13px] text-ink-muted")} title={tokens.detail}>
        {tokens.total}
      </div>
      <div
        role="cell"
        className={cn(WIDE, NUM, "text-[13px] text-ink-muted")}
        title={run.costUsd === null ? "Not priced (offline, or no price for this model)" : undefined}
      >
        {formatCost(run.costUsd)}
      </div>
      <div role="cell" className={cn(WIDE, NUM, "text-[13px] text-ink-muted")}>
        {formatDuration(run.latencyMs)}
      </div>
      <div role="cell" className={WIDE}>
        <DeltaLink run={run} />
      </div>
      {/* Phones: the same facts on one wrapped line. */}
      <div role="cell" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-ink-muted lg:hidden">
        <RunStateBadge run={run} />
        <ProviderBadge provider={run.provider} model={run.model} />
        <RelativeTime date={run.createdAt} />
        {showPlaybook ? <span className="truncate">· {run.playbookName}</span> : null}
        {phoneFacts.filter(Boolean).map((fact) => (
          <span key={fact}>· {fact}</span>
        ))}
        <DeltaLink run={run} />
      </div>
    </>
  );
}

function DeltaLink({ run }: { run: RunListItem }) {
  if (!run.deltaId) return <span className="text-[13px] text-ink-faint">—</span>;
  return (
    <ItsDeltaLink
      playbookId={run.playbookId}
      deltaId={run.deltaId}
      className="relative z-10 text-[13px]"
      label={`Open the delta of ${ROLE_META[run.role].label.toLowerCase()} run ${shortId(run.id)}`}
    />
  );
}
