"use client";
// Traces as table rows: when, the task (a link to the trace), outcome, cited bullets, duration,
// tokens and whether the reflector has read it. Used by the explorer and a playbook's Runs tab.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { RelativeTime } from "@/components/ui/relative-time";
import { formatDuration, formatNumber, plural, tokenSummary } from "@/components/ui/format";
import type { TraceListItem } from "@/server/traces/schemas";
import { DataTable, ROW_LINK, type DataTableProps, type TableColumn } from "@/components/ui/data-table";
import { traceHref } from "@/components/ui/routes";
import { OutcomeBadge, ReflectedBadge } from "./trace-badges";

const NUM = "lg:text-right tabular-nums";

const COLUMNS: TableColumn[] = [
  { key: "received", header: "Received" },
  { key: "task", header: "Task" },
  { key: "playbook", header: "Playbook" },
  { key: "outcome", header: "Outcome" },
  { key: "cited", header: "Cited", className: NUM },
  { key: "duration", header: "Duration", className: NUM },
  { key: "tokens", header: "Tokens", className: NUM },
  { key: "reflected", header: "Reflector" },
];

const GRID_WITH_PLAYBOOK = "lg:grid-cols-[6.5rem_minmax(0,1fr)_minmax(0,10rem)_6.5rem_3.5rem_4.5rem_5rem_8rem]";
const GRID = "lg:grid-cols-[6.5rem_minmax(0,1fr)_6.5rem_3.5rem_4.5rem_5rem_8rem]";

const WIDE = "hidden lg:block";

export function TracesTable({
  items,
  showPlaybook,
  ...rest
}: { items: readonly TraceListItem[]; showPlaybook: boolean } & Omit<
  DataTableProps<TraceListItem>,
  "label" | "columns" | "grid" | "items" | "getKey" | "renderCells"
>) {
  return (
    <DataTable
      label="Traces"
      columns={showPlaybook ? COLUMNS : COLUMNS.filter((column) => column.key !== "playbook")}
      grid={showPlaybook ? GRID_WITH_PLAYBOOK : GRID}
      items={items}
      getKey={(trace) => trace.id}
      estimateSize={66}
      renderCells={(trace) => <TraceCells trace={trace} showPlaybook={showPlaybook} />}
      {...rest}
    />
  );
}

function TraceCells({ trace, showPlaybook }: { trace: TraceListItem; showPlaybook: boolean }) {
  const tokens = tokenSummary(trace.inputTokens, trace.outputTokens);
  const cited = trace.citedBulletIds.length;
  return (
    <>
      <div role="cell" className={cn(WIDE, "whitespace-nowrap text-[13px] text-ink-muted")}>
        <RelativeTime date={trace.createdAt} />
      </div>
      <div role="cell" className="min-w-0">
        <Link
          href={traceHref(trace.id)}
          data-row-link
          className={cn(ROW_LINK, "block text-sm leading-snug text-ink group-hover:text-accent-ink")}
        >
          <span className="line-clamp-2 break-words">{trace.taskPreview.trim() || "Untitled task"}</span>
        </Link>
        {trace.externalId || trace.variant ? (
          <span className="mt-1 flex min-w-0 items-center gap-1.5">
            {trace.variant ? (
              <Badge tone="blue" title="Experiment variant">
                {trace.variant}
              </Badge>
            ) : null}
            {trace.externalId ? (
              <span className="truncate font-mono text-[11px] text-ink-faint" title="The agent's own id">
                {trace.externalId}
              </span>
            ) : null}
          </span>
        ) : null}
      </div>
      {showPlaybook ? (
        <div role="cell" className={cn(WIDE, "truncate text-[13px] text-ink-muted")} title={trace.playbookName}>
          {trace.playbookName}
        </div>
      ) : null}
      <div role="cell" className={WIDE}>
        <OutcomeBadge outcome={trace.outcome} />
      </div>
      <div
        role="cell"
        className={cn(WIDE, NUM, "text-[13px]", cited === 0 ? "text-ink-faint" : "text-ink")}
        title={plural(cited, "cited bullet")}
      >
        {formatNumber(cited)}
      </div>
      <div role="cell" className={cn(WIDE, NUM, "text-[13px] text-ink-muted")}>
        {formatDuration(trace.durationMs)}
      </div>
      <div role="cell" className={cn(WIDE, NUM, "text-[13px] text-ink-muted")} title={tokens.detail}>
        {tokens.total}
      </div>
      <div role="cell" className={WIDE}>
        <ReflectedBadge reflectedAt={trace.reflectedAt} />
      </div>
      {/* Phones: the same facts on one wrapped line under the task. */}
      <div role="cell" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-ink-muted lg:hidden">
        <OutcomeBadge outcome={trace.outcome} />
        <ReflectedBadge reflectedAt={trace.reflectedAt} />
        <RelativeTime date={trace.createdAt} />
        {showPlaybook ? <span className="truncate">· {trace.playbookName}</span> : null}
        <span>· {cited} cited</span>
        {trace.durationMs !== null ? <span>· {formatDuration(trace.durationMs)}</span> : null}
        {tokens.total !== "—" ? <span>· {tokens.total} tokens</span> : null}
      </div>
    </>
  );
}
