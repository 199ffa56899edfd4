"use client";
// Settings → Retention: the studio default (what playbooks without days of their own keep), the last
// run and what it removed, what the next run will remove per playbook (a dry run), and Run now.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { AdminHeader } from "@/components/admin/settings-nav";
import { usePermission } from "@/components/auth/session-context";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { LoadFailed } from "@/components/ui/load-failed";
import { Notice } from "@/components/ui/notice";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import type { RetentionSettings, RetentionStatus } from "@/server/retention/schemas";
import { describeRemoved, draftOf, parseDraft, RetentionFields, RetentionFormFooter, type RetentionDraft } from "./retention-fields";

const card = "overflow-hidden rounded-card border border-line bg-surface shadow-card";

export function RetentionView() {
  const trpc = useTRPC();
  const status = useQuery(trpc.retention.status.queryOptions());
  return (
    <div className="flex flex-col gap-6">
      <AdminHeader
        title="Retention"
        description="How long traces, rejected deltas and failed runs are kept; succeeded runs go once their traces have. Applied deltas and versions are the history and are kept. The charts keep their figures for expired days."
      />
      {status.isError ? <LoadFailed what="retention" error={status.error} onRetry={() => void status.refetch()} /> : null}
      {status.data ? (
        <>
          <StudioDefaultCard key={JSON.stringify(status.data.studioDefault)} saved={status.data.studioDefault} />
          <RunsCard status={status.data} />
        </>
      ) : status.isPending ? (
        <Skeleton className="h-48" />
      ) : null}
      <PreviewCard />
    </div>
  );
}

function StudioDefaultCard({ saved }: { saved: RetentionSettings }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const permission = usePermission("retention.manage");
  const [draft, setDraft] = useState<RetentionDraft>(draftOf(saved));
  const parsed = parseDraft(draft);
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(saved));
  const save = useMutation(
    trpc.retention.setStudioDefault.mutationOptions({
      onSuccess: async () => {
        toast.success("Studio retention saved");
        await queryClient.invalidateQueries({ queryKey: trpc.retention.pathKey() });
        await queryClient.invalidateQueries({ queryKey: trpc.playbook.pathKey() });
      },
    }),
  );
  return (
    <section aria-label="Studio default" className={card}>
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 className="text-sm font-semibold text-ink">Studio default</h2>
        <p className="mt-0.5 text-[13px] text-ink-muted">
          Playbooks without days of their own follow these. Never removed: traces not yet reflected, traces a pending delta cites, and the
          traces and exposures of an experiment until it is stopped and archived.
        </p>
      </header>
      <form
        className="flex flex-col gap-3 px-4 py-4 sm:px-5"
        onSubmit={(event) => {
          event.preventDefault();
          if (parsed.settings) save.mutate(parsed.settings);
        }}
      >
        <fieldset disabled={!permission.allowed} className="min-w-0">
          <RetentionFields draft={draft} onChange={setDraft} />
        </fieldset>
        <RetentionFormFooter
          problem={parsed.problem}
          saveError={save.isError ? save.error : null}
          saving={save.isPending}
          canSave={permission.allowed && dirty && parsed.problem === null}
          permission={permission}
          label="Save studio default"
        />
      </form>
    </section>
  );
}

function RunsCard({ status }: { status: RetentionStatus }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const permission = usePermission("retention.manage");
  const [confirming, setConfirming] = useState(false);
  const run = useMutation(
    trpc.retention.runNow.mutationOptions({
      onSuccess: async (result) => {
        setConfirming(false);
        toast.success("Retention ran", { description: `Removed ${describeRemoved(result)}.` });
        await queryClient.invalidateQueries({ queryKey: trpc.retention.pathKey() });
      },
    }),
  );
  const last = status.lastRun;
  return (
    <section aria-label="Runs" className={card}>
      <header className="flex flex-wrap items-start justify-between gap-3 border-b border-line px-4 py-3 sm:px-5">
        <div className="min-w-0">
          <h2 className="text-sm font-semibold text-ink">Runs</h2>
          <p className="mt-0.5 text-[13px] text-ink-muted">
            Daily at 03:00 UTC, in batches so ingestion never waits long.{" "}
            {status.nextRunAt ? (
              <>
                Next run <RelativeTime date={status.nextRunAt} />
              </>
            ) : (
              "No run is queued (the studio's worker is off)."
            )}
          </p>
        </div>
        <ConfirmDialog
          open={confirming}
          onOpenChange={setConfirming}
          trigger={
            <Button variant="secondary" size="sm" disabled={!permission.allowed}>
              Run retention now
            </Button>
          }
          title="Run retention now?"
          description="Everything listed under “What the next run will remove” is deleted now. The charts keep their figures."
          confirmLabel="Run now"
          pendingLabel="Running…"
          pending={run.isPending}
          error={run.error}
          onConfirm={() => run.mutate()}
        />
      </header>
      <div className="px-4 py-3 text-sm sm:px-5">
        {last ? (
          <div className="flex flex-col gap-2">
            <p className="text-ink">
              Last run <RelativeTime date={last.startedAt} /> ({last.trigger === "manual" ? "run now" : "daily"}): removed{" "}
              <strong className="font-semibold">{describeRemoved(last)}</strong>.
            </p>
            {last.error ? (
              <Notice tone="danger" title="The run stopped early">
                {last.error}
              </Notice>
            ) : null}
            {last.byPlaybook.length > 0 ? (
              <ul className="flex flex-col gap-1 text-[13px] text-ink-muted">
                {last.byPlaybook.map((row) => (
                  <li key={row.playbookId}>
                    <Link className="font-medium text-ink underline-offset-2 hover:underline" href={`/playbooks/${row.playbookId}`}>
                      {row.name}
                    </Link>
                    : {describeRemoved(row)}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        ) : (
          <p className="text-ink-muted">Retention has not run yet.</p>
        )}
      </div>
    </section>
  );
}

function PreviewCard() {
  const trpc = useTRPC();
  const preview = useQuery(trpc.retention.preview.queryOptions());
  return (
    <section aria-label="What the next run will remove" className={card}>
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 className="text-sm font-semibold text-ink">What the next run will remove</h2>
        <p className="mt-0.5 text-[13px] text-ink-muted">Counted now, per playbook; nothing is deleted to count them.</p>
      </header>
      {preview.isError ? <LoadFailed what="the retention preview" error={preview.error} onRetry={() => void preview.refetch()} /> : null}
      {preview.isPending ? <Skeleton className="m-4 h-16" /> : null}
      {preview.data ? (
        preview.data.playbooks.length === 0 ? (
          <p className="px-4 py-3 text-sm text-ink-muted sm:px-5">No playbooks yet.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full min-w-[34rem] text-sm">
              <thead className="text-left text-[13px] text-ink-muted">
                <tr className="border-b border-line">
                  <th scope="col" className="px-4 py-2 font-medium sm:px-5">
                    Playbook
                  </th>
                  <th scope="col" className="px-2 py-2 font-medium">
                    Keeps (days)
                  </th>
                  <th scope="col" className="px-2 py-2 text-right font-medium">
                    Traces
                  </th>
                  <th scope="col" className="px-2 py-2 text-right font-medium">
                    Rejected deltas
                  </th>
                  <th scope="col" className="px-2 py-2 text-right font-medium">
                    Failed runs
                  </th>
                  <th scope="col" className="px-2 py-2 text-right font-medium">
                    Succeeded runs
                  </th>
                  <th scope="col" className="px-4 py-2 text-right font-medium sm:px-5">
                    Exposures
                  </th>
                </tr>
              </thead>
              <tbody>
                {preview.data.playbooks.map((row) => (
                  <tr key={row.playbookId} className="border-b border-line last:border-0">
                    <th scope="row" className="px-4 py-2 text-left font-medium text-ink sm:px-5">
                      <Link className="underline-offset-2 hover:underline" href={`/playbooks/${row.playbookId}/settings`}>
                        {row.name}
                      </Link>
                    </th>
                    <td className="px-2 py-2 text-ink-muted">
                      {row.retention.traces} · {row.retention.rejectedDeltas} · {row.retention.failedRuns}{" "}
                      {row.ownRetention ? <Badge tone="blue">own</Badge> : null}
                    </td>
                    <td className="px-2 py-2 text-right tabular-nums">{row.traces.toLocaleString("en")}</td>
                    <td className="px-2 py-2 text-right tabular-nums">{row.rejectedDeltas.toLocaleString("en")}</td>
                    <td className="px-2 py-2 text-right tabular-nums">{row.failedRuns.toLocaleString("en")}</td>
                    <td className="px-2 py-2 text-right tabular-nums">{row.succeededRuns.toLocaleString("en")}</td>
                    <td className="px-4 py-2 text-right tabular-nums sm:px-5">{row.exposures.toLocaleString("en")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </section>
  );
}
