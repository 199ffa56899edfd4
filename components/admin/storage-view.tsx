"use client";
// Settings → Storage: where the database's space goes, per table and per playbook, so an admin can
// see what traces, versions and runs cost and what retention frees.
import { useQuery } from "@tanstack/react-query";
import { RefreshCw } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { Button } from "@/components/ui/button";
import { countsInWords, formatBytes, formatNumber } from "@/components/ui/format";
import { LoadFailed } from "@/components/ui/load-failed";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import type { PreviewRow, RetentionPreview } from "@/server/retention/schemas";
import type { PlaybookStorage, StorageReport } from "@/server/storage/schemas";
import { AdminTable } from "./admin-table";
import { AdminHeader } from "./settings-nav";

const cell = "whitespace-nowrap px-4 py-2.5 tabular-nums";

export function StorageView() {
  const trpc = useTRPC();
  const report = useQuery(trpc.storage.report.queryOptions());
  const retention = useQuery(trpc.retention.preview.queryOptions());
  return (
    <div className="pb-16">
      <AdminHeader
        title="Storage"
        description="Rows and bytes the database holds, per table and per playbook. Traces usually take the most; retention deletes the old ones while the charts keep their numbers."
        actions={
          <Button variant="secondary" onClick={() => void report.refetch()} disabled={report.isFetching}>
            <RefreshCw aria-hidden /> {report.isFetching ? "Measuring…" : "Measure again"}
          </Button>
        }
      />
      {report.isPending ? (
        <Skeleton className="h-64" />
      ) : report.isError ? (
        <LoadFailed what="storage figures" error={report.error} onRetry={() => void report.refetch()} />
      ) : (
        <Report report={report.data} retention={retention.data ?? null} />
      )}
    </div>
  );
}

function Report({ report, retention }: { report: StorageReport; retention: RetentionPreview | null }) {
  const nextRun = new Map(retention?.playbooks.map((row) => [row.playbookId, row]));
  return (
    <div className="flex flex-col gap-8">
      <p className="text-sm text-ink-muted">
        The database holds <strong className="font-semibold text-ink">{formatBytes(report.databaseBytes)}</strong>, measured{" "}
        <RelativeTime date={report.measuredAt} />.
      </p>
      <section aria-labelledby="storage-playbooks" className="flex flex-col gap-3">
        <h2 id="storage-playbooks" className="text-sm font-semibold text-ink">
          Per playbook
        </h2>
        <AdminTable label="Storage per playbook" columns={["Playbook", "Rows", "Size", "Largest parts", "The next retention run removes"]}>
          {report.playbooks.map((playbook) => (
            <PlaybookRow
              key={playbook.playbookId}
              playbook={playbook}
              nextRun={nextRun.get(playbook.playbookId)}
              loaded={retention !== null}
            />
          ))}
        </AdminTable>
        <p className="text-xs text-ink-faint">
          A playbook&apos;s size is the sum of its rows as stored (long texts compressed), without the indexes, which the tables below
          include. Retention&apos;s days and its last runs are in{" "}
          <Link href="/settings/retention" className="font-medium text-accent-ink hover:underline">
            Settings → Retention
          </Link>
          .
        </p>
      </section>
      <section aria-labelledby="storage-tables" className="flex flex-col gap-3">
        <h2 id="storage-tables" className="text-sm font-semibold text-ink">
          Per table
        </h2>
        <AdminTable label="Storage per table" columns={["Table", "Rows", "Size", "Of which indexes"]}>
          {report.tables.map((table) => (
            <tr key={table.table}>
              <th scope="row" className="px-4 py-2.5 text-left font-mono text-xs font-medium text-ink">
                {table.table}
              </th>
              <td className={cell}>{formatNumber(table.rows)}</td>
              <td className={cell}>{formatBytes(table.bytes)}</td>
              <td className={`${cell} text-ink-muted`}>{formatBytes(table.indexBytes)}</td>
            </tr>
          ))}
        </AdminTable>
      </section>
    </div>
  );
}

/** "1,204 traces, 3 rejected deltas", or "Nothing" (null while the preview loads). */
function removals(row: PreviewRow | undefined): string {
  if (!row) return "Nothing";
  const words = countsInWords([
    [row.traces, "trace", "traces"],
    [row.rejectedDeltas, "rejected delta", "rejected deltas"],
    [row.failedRuns, "failed run", "failed runs"],
    [row.succeededRuns, "succeeded run", "succeeded runs"],
    [row.exposures, "exposure", "exposures"],
  ]);
  return words || "Nothing";
}

function PlaybookRow({ playbook, nextRun, loaded }: { playbook: PlaybookStorage; nextRun: PreviewRow | undefined; loaded: boolean }) {
  return (
    <tr>
      <th scope="row" className="max-w-64 px-4 py-2.5 text-left font-medium text-ink">
        <span className="break-words">{playbook.name}</span>
      </th>
      <td className={cell}>{formatNumber(playbook.rows)}</td>
      <td className={cell}>{formatBytes(playbook.bytes)}</td>
      <td className="px-4 py-2.5 text-xs text-ink-muted">
        {playbook.tables
          .slice(0, 3)
          .map((table) => `${table.table} ${formatNumber(table.rows)} (${formatBytes(table.bytes)})`)
          .join(" · ") || "Nothing yet"}
      </td>
      <td className="px-4 py-2.5 text-xs text-ink-muted">{loaded ? removals(nextRun) : "…"}</td>
    </tr>
  );
}
