"use client";
// The frame of every Evolution chart: a titled card with "Show data" (an accessible table of the
// numbers the chart draws) and a CSV download of the same table.
import { Download, Table2 } from "lucide-react";
import Link from "next/link";
import { useId, useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import type { ZonedBucket } from "./chart-parts";
import { csvFileName, toCsv, type DataTableModel } from "./data-table";
import { formatCell } from "./format";

export function ChartCard({
  title,
  description,
  tables,
  shownTables = [],
  time,
  controls,
  resetKey,
  children,
  className,
}: {
  title: string;
  /** One line under the title: what the chart shows and how to read it. */
  description?: ReactNode;
  /** What "Show data" lists and the CSV holds; several for a chart with a summary table. */
  tables: readonly DataTableModel[];
  /** Tables the card already shows (a summary): a CSV download only. */
  shownTables?: readonly DataTableModel[];
  /** How the tables label their buckets: a section's time frame, passed on whole. */
  time: ZonedBucket;
  /** Toggles of the chart itself (by type / by origin …). */
  controls?: ReactNode;
  /** A new key draws the chart afresh (a new range), while the card and its "Show data" stay. */
  resetKey?: string;
  children: ReactNode;
  className?: string;
}) {
  const headingId = useId();
  const tableId = useId();
  const [showData, setShowData] = useState(false);
  return (
    <section aria-labelledby={headingId} className={cn("min-w-0 rounded-card border border-line bg-surface shadow-card", className)}>
      <header className="flex flex-wrap items-start gap-x-3 gap-y-2 border-b border-line px-4 py-3 sm:px-5">
        {/* The title keeps at least 18rem: on a narrow card (two per row, a phone) the buttons wrap below it instead of squeezing it. */}
        <div className="min-w-[min(100%,18rem)] flex-1">
          <h2 id={headingId} className="text-sm font-semibold text-ink">
            {title}
          </h2>
          {description ? <p className="mt-0.5 text-xs text-ink-muted">{description}</p> : null}
        </div>
        <div className="flex flex-wrap items-center gap-1.5">
          {controls}
          <Button
            size="sm"
            variant={showData ? "secondary" : "ghost"}
            aria-expanded={showData}
            aria-controls={tableId}
            onClick={() => setShowData((shown) => !shown)}
          >
            <Table2 aria-hidden /> {showData ? "Hide data" : "Show data"}
          </Button>
          {tables.length + shownTables.length === 1 ? (
            <CsvButton table={tables[0]!} label={`Download CSV of ${title}`} />
          ) : (
            [...tables, ...shownTables].map((table) => (
              <CsvButton
                key={table.title}
                table={table}
                label={`Download CSV of ${table.title}`}
                text={`CSV: ${shortTitle(table.title)}`}
              />
            ))
          )}
        </div>
      </header>
      <div key={resetKey} className="px-2 py-3 sm:px-3">
        {children}
      </div>
      <div id={tableId} hidden={!showData} className="border-t border-line">
        {showData ? tables.map((table) => <DataTableView key={table.title} table={table} time={time} />) : null}
      </div>
    </section>
  );
}

/** "Outcomes · Support" → "Outcomes": the chart name without the playbook. */
function shortTitle(title: string): string {
  return title.split(" · ")[0] ?? title;
}

function CsvButton({ table, label, text = "CSV" }: { table: DataTableModel; label: string; text?: string }) {
  return (
    <Button size="sm" variant="ghost" aria-label={label} title={label} onClick={() => downloadCsv(table)}>
      <Download aria-hidden /> {text}
    </Button>
  );
}

function downloadCsv(table: DataTableModel) {
  // A byte-order mark, so spreadsheet programs read the file as UTF-8 (section names, "−").
  const blob = new Blob(["\ufeff", toCsv(table)], { type: "text/csv;charset=utf-8" });
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement("a");
  anchor.href = url;
  anchor.download = csvFileName(table.title);
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // Give the browser a moment to start the download before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The table of a chart's numbers: a real <table> with headers, scrolling inside its box. */
export function DataTableView({ table, time: { bucket, timeZone } }: { table: DataTableModel; time: ZonedBucket }) {
  const numeric = (kind: string) => kind !== "text" && kind !== "bucket" && kind !== "instant";
  return (
    <div className="max-h-96 overflow-auto">
      <table className="w-full min-w-max text-[13px]" aria-label={table.title}>
        <caption className="px-4 pb-1 pt-3 text-left text-xs font-medium text-ink-faint sm:px-5">
          {table.title} · {table.rows.length === 1 ? "1 row" : `${table.rows.length} rows`}
          {table.columns.some((column) => column.kind === "bucket") ? ` · bucket starts in ${timeZone}` : ""}
        </caption>
        <thead className="sticky top-0 bg-subtle">
          <tr>
            {table.columns.map((column) => (
              <th
                key={column.key}
                scope="col"
                className={cn(
                  "whitespace-nowrap px-3 py-2 text-xs font-medium text-ink-faint first:pl-4 last:pr-4 sm:first:pl-5",
                  numeric(column.kind) ? "text-right" : "text-left",
                )}
              >
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {table.rows.map((row, index) => (
            <tr key={index} className="hover:bg-subtle/50">
              {table.columns.map((column, columnIndex) => {
                const text = formatCell(column.kind, row[column.key] ?? null, bucket, timeZone);
                const href = table.links?.[index]?.[column.key];
                const content = href ? (
                  <Link href={href} className="text-accent-ink underline-offset-2 hover:underline">
                    {text}
                  </Link>
                ) : (
                  text
                );
                const Cell = columnIndex === 0 ? "th" : "td";
                return (
                  <Cell
                    key={column.key}
                    scope={columnIndex === 0 ? "row" : undefined}
                    className={cn(
                      "whitespace-nowrap px-3 py-1.5 font-normal first:pl-4 last:pr-4 sm:first:pl-5",
                      numeric(column.kind) ? "text-right tabular-nums" : "text-left",
                      column.kind === "text" && "max-w-md truncate whitespace-normal",
                      columnIndex === 0 ? "text-ink" : "text-ink-muted",
                    )}
                  >
                    {content}
                  </Cell>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
