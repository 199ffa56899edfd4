"use client";
// Experiments as table rows: the name (a link to the results), the playbook, the status, who leads
// and whether that is significant, the SRM flag, and how far along the planned sample it is.
import Link from "next/link";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { DataTable, ROW_LINK, type TableColumn } from "@/components/ui/data-table";
import { formatNumber, plural } from "@/components/ui/format";
import { RelativeTime } from "@/components/ui/relative-time";
import type { ExperimentListItem } from "@/server/experiments/schemas";
import { SampleProgress, SrmBadge, StatusBadge } from "./experiment-badges";
import { experimentHref } from "./experiment-url";
import { formatRate } from "./format";

const WIDE = "hidden lg:block";

const COLUMNS: TableColumn[] = [
  { key: "experiment", header: "Experiment" },
  { key: "playbook", header: "Playbook" },
  { key: "status", header: "Status" },
  { key: "leader", header: "Leader" },
  { key: "significance", header: "Significance" },
  { key: "progress", header: "Progress" },
  { key: "updated", header: "Updated" },
];

const GRID = "lg:grid-cols-[minmax(0,1.6fr)_minmax(0,1fr)_7.5rem_7rem_9rem_minmax(0,11rem)_6rem]";

export function ExperimentsTable({ items, dimmed }: { items: readonly ExperimentListItem[]; dimmed?: boolean }) {
  return (
    <DataTable
      label="Experiments"
      columns={COLUMNS}
      grid={GRID}
      items={items}
      getKey={(experiment) => experiment.key}
      virtual={false}
      dimmed={dimmed}
      renderCells={(experiment) => <ExperimentCells experiment={experiment} />}
      endNote={items.length > 10 ? `${plural(items.length, "experiment")}` : null}
    />
  );
}

function Leader({ experiment }: { experiment: ExperimentListItem }) {
  if (!experiment.leader) return <span className="text-[13px] text-ink-faint">No data yet</span>;
  return (
    <span className="text-[13px] text-ink">
      <span className="font-medium">{experiment.leader.variant}</span>
      <span className="ml-1.5 tabular-nums text-ink-muted">{formatRate(experiment.leader.successRate)}</span>
    </span>
  );
}

export function Significance({ experiment }: { experiment: Pick<ExperimentListItem, "leader" | "srmFlagged" | "early"> }) {
  return (
    <span className="flex flex-wrap items-center gap-1">
      {experiment.srmFlagged ? <SrmBadge /> : null}
      {experiment.leader?.significant ? (
        <Badge tone="green" title="The leader beats the control significantly (Holm-adjusted p < 0.05)">
          Significant
        </Badge>
      ) : experiment.leader ? (
        <Badge tone="gray">Not significant</Badge>
      ) : null}
      {experiment.early && experiment.leader ? (
        <Badge tone="amber" title="The planned sample is not reached yet: read the p-values at the end (fixed-horizon design)">
          Early
        </Badge>
      ) : null}
    </span>
  );
}

function ExperimentCells({ experiment }: { experiment: ExperimentListItem }) {
  const caption = `${plural(experiment.units, "unit")} · ${plural(experiment.traces, "trace")}`;
  return (
    <>
      <div role="cell" className="min-w-0">
        <Link
          href={experimentHref(experiment.key)}
          data-row-link
          className={cn(ROW_LINK, "block truncate text-sm font-medium text-ink group-hover:text-accent-ink")}
        >
          {experiment.name}
        </Link>
        <p className="mt-0.5 truncate font-mono text-[11px] text-ink-faint">
          {experiment.key}
          {experiment.phase !== null && experiment.phase > 1 ? ` · phase ${experiment.phase}` : ""} ·{" "}
          {experiment.variants.map((v) => v.key).join(" / ")}
        </p>
      </div>
      <div role="cell" className={cn(WIDE, "truncate text-[13px] text-ink-muted")} title={experiment.playbook}>
        {experiment.playbook}
      </div>
      <div role="cell" className={WIDE}>
        <StatusBadge status={experiment.status} decision={experiment.decision} />
      </div>
      <div role="cell" className={WIDE}>
        <Leader experiment={experiment} />
      </div>
      <div role="cell" className={WIDE}>
        <Significance experiment={experiment} />
      </div>
      <div role="cell" className={cn(WIDE, "min-w-0")}>
        <SampleProgress fraction={experiment.progress} caption={caption} />
      </div>
      <div role="cell" className={cn(WIDE, "whitespace-nowrap text-[13px] text-ink-muted")}>
        <RelativeTime date={new Date(experiment.updatedAt)} />
      </div>
      {/* Phones: the same facts on wrapped lines. */}
      <div role="cell" className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-ink-muted lg:hidden">
        <StatusBadge status={experiment.status} decision={experiment.decision} />
        <span className="truncate">{experiment.playbook}</span>
        <Leader experiment={experiment} />
        <Significance experiment={experiment} />
        <span className="tabular-nums">
          {experiment.progress !== null ? `${Math.floor(Math.min(1, experiment.progress) * 100)} % of plan · ` : ""}
          {formatNumber(experiment.units)} units
        </span>
      </div>
    </>
  );
}
