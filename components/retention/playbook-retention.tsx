"use client";
// The playbook settings' retention card: the studio default it follows, or days of its own; what the
// last run removed from it and what the next run will remove. Saved as a version like other settings.
import { useMutation, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { toast } from "sonner";
import { usePermission } from "@/components/auth/session-context";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { RelativeTime } from "@/components/ui/relative-time";
import type { RetentionSettings } from "@/server/retention/schemas";
import { describeRemoved, draftOf, parseDraft, RetentionFields, RetentionFormFooter, type RetentionDraft } from "./retention-fields";

export function PlaybookRetentionCard({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  return (
    <PlaybookRetentionBody
      key={`${playbook.version}:${JSON.stringify(playbook.settings.retention)}`}
      playbookId={playbookId}
      saved={playbook.settings.retention}
      own={playbook.ownRetention}
    />
  );
}

function PlaybookRetentionBody({ playbookId, saved, own }: { playbookId: string; saved: RetentionSettings; own: boolean }) {
  const trpc = useTRPC();
  const id = useId();
  const invalidate = useInvalidateCuration();
  const permission = usePermission("playbook.settings");
  const [ownDays, setOwnDays] = useState(own);
  const [draft, setDraft] = useState<RetentionDraft>(draftOf(saved));
  const parsed = parseDraft(draft);
  const status = useQuery(trpc.retention.status.queryOptions());
  const preview = useQuery(trpc.retention.preview.queryOptions());
  const studio = status.data?.studioDefault;
  const dirty = ownDays !== own || (ownDays && JSON.stringify(draft) !== JSON.stringify(draftOf(saved)));
  const save = useMutation(
    trpc.playbook.updateSettings.mutationOptions({
      onSuccess: async (result) => {
        if (result.changed.length === 0) toast.info("Nothing changed.");
        else toast.success(`Retention saved as version ${result.version}`, { description: result.changed.join(" · ") });
        await invalidate();
        await preview.refetch();
      },
    }),
  );
  const removedLast = status.data?.lastRun?.byPlaybook.find((row) => row.playbookId === playbookId);
  const next = preview.data?.playbooks.find((row) => row.playbookId === playbookId);

  return (
    <section aria-label="Retention" className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 className="text-sm font-semibold text-ink">Retention</h2>
        <p className="mt-0.5 text-[13px] text-ink-muted">
          How long this playbook keeps traces, rejected deltas and failed runs. Applied deltas and versions are kept, and the charts keep
          their figures for expired days.{" "}
          <Link className="underline underline-offset-2" href="/settings/retention">
            Studio retention
          </Link>
        </p>
      </header>
      <form
        className="flex flex-col gap-4 px-4 py-4 sm:px-5"
        onSubmit={(event) => {
          event.preventDefault();
          if (!ownDays) save.mutate({ playbookId, settings: { retention: null } });
          else if (parsed.settings) save.mutate({ playbookId, settings: { retention: parsed.settings } });
        }}
      >
        <fieldset disabled={!permission.allowed} className="flex min-w-0 flex-col gap-3">
          <legend className="sr-only">Retention of this playbook</legend>
          <label htmlFor={`${id}-studio`} className="flex items-start gap-2 text-sm text-ink">
            <input
              id={`${id}-studio`}
              type="radio"
              name={`${id}-mode`}
              className="mt-1"
              checked={!ownDays}
              onChange={() => setOwnDays(false)}
            />
            <span>
              Follows the studio default
              {studio ? (
                <span className="text-ink-muted">
                  {" "}
                  ({studio.traces} days of traces, {studio.rejectedDeltas} of rejected deltas, {studio.failedRuns} of failed runs)
                </span>
              ) : null}
            </span>
          </label>
          <label htmlFor={`${id}-own`} className="flex items-start gap-2 text-sm text-ink">
            <input id={`${id}-own`} type="radio" name={`${id}-mode`} className="mt-1" checked={ownDays} onChange={() => setOwnDays(true)} />
            <span>Days of its own</span>
          </label>
          {ownDays ? (
            <div className="pl-6">
              <RetentionFields draft={draft} onChange={setDraft} />
            </div>
          ) : null}
        </fieldset>
        <RetentionFormFooter
          problem={ownDays ? parsed.problem : null}
          saveError={save.isError ? save.error : null}
          saving={save.isPending}
          canSave={permission.allowed && dirty && !(ownDays && parsed.problem !== null)}
          permission={permission}
          label="Save retention"
        />
      </form>
      <div className="flex flex-col gap-1 border-t border-line px-4 py-3 text-[13px] text-ink-muted sm:px-5">
        <p>
          Next run
          {status.data?.nextRunAt ? (
            <>
              {" "}
              (<RelativeTime date={status.data.nextRunAt} />)
            </>
          ) : null}{" "}
          will remove: <span className="text-ink">{next ? describeRemoved(next) : "…"}</span>
        </p>
        <p>
          {status.data?.lastRun ? (
            <>
              Last run (<RelativeTime date={status.data.lastRun.startedAt} />) removed:{" "}
              <span className="text-ink">{removedLast ? describeRemoved(removedLast) : "nothing"}</span>
            </>
          ) : (
            "Retention has not run yet."
          )}
        </p>
      </div>
    </section>
  );
}
