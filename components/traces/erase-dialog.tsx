"use client";
// "Delete on request" on the Traces page, for admins: a person asks for their data or for its
// deletion. Name the traces (a unit id, an external id, a time range), see what matches, download
// it as JSON Lines, then delete it with the unit's experiment exposures.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Download, UserX } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { useCan } from "@/components/auth/session-context";
import { useTRPC } from "@/components/trpc/client";
import { Button, buttonClass } from "@/components/ui/button";
import { DialogActions, DialogButton } from "@/components/ui/dialog";
import { formErrors } from "@/components/ui/errors";
import { formatNumber, plural } from "@/components/ui/format";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { Select } from "@/components/ui/select";
import type { TraceSelection } from "@/server/traces/schemas";

interface Draft {
  playbookId: string;
  unitId: string;
  externalId: string;
  /** Days (yyyy-mm-dd, UTC), both included. */
  from: string;
  through: string;
}

const EMPTY: Omit<Draft, "playbookId"> = { unitId: "", externalId: "", from: "", through: "" };
const DAY_MS = 86_400_000;

function selectionOf(draft: Draft): TraceSelection {
  const day = (text: string) => (text ? new Date(`${text}T00:00:00.000Z`) : undefined);
  const through = day(draft.through);
  return {
    playbookId: draft.playbookId,
    unitId: draft.unitId.trim() || undefined,
    externalId: draft.externalId.trim() || undefined,
    from: day(draft.from),
    to: through ? new Date(through.getTime() + DAY_MS) : undefined,
  };
}

/** The session-authenticated download of the same selection (app/api/traces/export). */
function exportHref(playbook: string, selection: TraceSelection): string {
  const params = new URLSearchParams({ playbook });
  if (selection.unitId) params.set("unitId", selection.unitId);
  if (selection.externalId) params.set("externalId", selection.externalId);
  if (selection.from) params.set("from", selection.from.toISOString());
  if (selection.to) params.set("to", selection.to.toISOString());
  return `/api/traces/export?${params}`;
}

export function EraseTracesButton() {
  if (!useCan("traces.erase")) return null;
  return (
    <DialogButton
      button={
        <Button variant="secondary">
          <UserX aria-hidden /> Delete on request
        </Button>
      }
      title="Delete a person's traces"
      description="For a subject-access or deletion request: find the traces, download them, then delete them. Counters they moved stay as they are."
    >
      {(close) => <EraseForm onDone={close} />}
    </DialogButton>
  );
}

function EraseForm({ onDone }: { onDone: () => void }) {
  const id = useId();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const playbooks = useQuery(trpc.playbook.list.queryOptions());
  const [draft, setDraft] = useState<Draft>({ playbookId: "", ...EMPTY });
  // The selection last looked up: what the summary, the download and Delete act on.
  const [found, setFound] = useState<TraceSelection | null>(null);
  const summary = useQuery({ ...trpc.traces.selectionSummary.queryOptions(found as TraceSelection), enabled: found !== null });
  const erase = useMutation(
    trpc.traces.deleteSelection.mutationOptions({
      onSuccess: async (deleted) => {
        toast.success(`Deleted ${plural(deleted.traces, "trace")} and ${plural(deleted.exposures, "experiment exposure")}.`, {
          description: `Emptied ${plural(deleted.runsEmptied, "run")} and rewrote ${plural(deleted.deltasRewritten, "delta")} that quoted them.`,
        });
        await queryClient.invalidateQueries({ queryKey: trpc.traces.pathKey() });
        onDone();
      },
    }),
  );
  const playbookId = draft.playbookId || playbooks.data?.[0]?.id || "";
  const playbookName = playbooks.data?.find((playbook) => playbook.id === playbookId)?.name ?? "";
  const { fields, unshown } = formErrors(summary.error ?? erase.error);

  function change(patch: Partial<Draft>) {
    setDraft((current) => ({ ...current, playbookId, ...patch }));
    setFound(null);
    erase.reset();
  }

  function find(event: FormEvent) {
    event.preventDefault();
    setFound(selectionOf({ ...draft, playbookId }));
  }

  const matched = summary.data ? summary.data.traces + summary.data.exposures : 0;
  return (
    <form onSubmit={find} className="flex flex-col gap-4" noValidate>
      <Field id={`${id}-playbook`} label="Playbook">
        <Select
          id={`${id}-playbook`}
          label="Playbook"
          value={playbookId}
          onValueChange={(value) => change({ playbookId: value })}
          options={(playbooks.data ?? []).map((playbook) => ({ value: playbook.id, label: playbook.name }))}
          placeholder={playbooks.isPending ? "Loading…" : "No playbooks"}
        />
      </Field>
      <Field
        id={`${id}-unit`}
        label="Unit id"
        optional
        hint="As the agent sent it, e.g. an email address; one stored as a keyed hash is found too."
        error={fields.unitId}
      >
        <Input
          {...fieldAria(`${id}-unit`, fields.unitId, true)}
          autoFocus
          value={draft.unitId}
          onChange={(event) => change({ unitId: event.target.value })}
        />
      </Field>
      <Field id={`${id}-external`} label="External id" optional error={fields.externalId}>
        <Input
          {...fieldAria(`${id}-external`, fields.externalId)}
          value={draft.externalId}
          onChange={(event) => change({ externalId: event.target.value })}
        />
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-from`} label="Ran from (UTC)" optional error={fields.from}>
          <Input
            {...fieldAria(`${id}-from`, fields.from)}
            type="date"
            value={draft.from}
            onChange={(event) => change({ from: event.target.value })}
          />
        </Field>
        <Field id={`${id}-through`} label="Through (UTC)" optional error={fields.to}>
          <Input
            {...fieldAria(`${id}-through`, fields.to)}
            type="date"
            value={draft.through}
            onChange={(event) => change({ through: event.target.value })}
          />
        </Field>
      </div>

      {found && summary.data ? (
        <Notice tone={matched > 0 ? "warning" : "info"} title={matched > 0 ? "Found" : "Nothing matches"}>
          <p>
            {plural(summary.data.traces, "trace")}
            {summary.data.unreflected > 0 ? ` (${formatNumber(summary.data.unreflected)} not reflected yet)` : ""} and{" "}
            {plural(summary.data.exposures, "experiment exposure")}.
          </p>
          {summary.data.traces > 0 ? (
            <a
              href={exportHref(playbookName, found)}
              download
              className={`${buttonClass("secondary", "sm")} mt-2`}
              aria-label="Download them as JSON Lines"
            >
              <Download aria-hidden /> Download JSON Lines
            </a>
          ) : null}
        </Notice>
      ) : null}

      <DialogActions error={unshown} onCancel={onDone}>
        {found && matched > 0 ? (
          <Button type="button" variant="danger" disabled={erase.isPending} onClick={() => erase.mutate(found)}>
            {erase.isPending ? "Deleting…" : `Delete ${plural(summary.data?.traces ?? 0, "trace")}`}
          </Button>
        ) : (
          <Button type="submit" variant="primary" disabled={!playbookId || (found !== null && summary.isFetching)}>
            {found && summary.isFetching ? "Finding…" : "Find traces"}
          </Button>
        )}
      </DialogActions>
    </form>
  );
}
