"use client";
// What a curator does with an experiment: start it, stop it, ship a variant (recording the decision,
// and rolling the playbook back when the winner pins an older version), and change the weights or
// coverage, which on a running experiment starts a new phase after a warning and a confirmation.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Archive, CirclePlay, CircleStop, Rocket, SlidersHorizontal } from "lucide-react";
import { useId, useState, type ReactNode } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog, DialogActions, DialogContent } from "@/components/ui/dialog";
import { errorMessage } from "@/components/ui/errors";
import { Field, fieldAria, Input, Label, Textarea } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { Select } from "@/components/ui/select";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { DecideInput, ExperimentDefinition, UpdateExperimentFields } from "@/server/experiments/schemas";
import { targetLabel } from "./experiment-badges";
import { evenWeights, percentText } from "./form-rules";
import { formatShare } from "./format";
import { checkReweight, reweightDraft, type ReweightDraft } from "./reweight";
import { WeightTotal } from "./weight-total";

type Dialogs = "start" | "stop" | "ship" | "weights" | "archive" | null;

/** The action buttons of an experiment's header, for its status. */
export function ExperimentActions({
  experiment,
  playbookVersion,
  suggestedWinner,
}: {
  experiment: ExperimentDefinition;
  /** The playbook's current version: a shipped variant pinned below it can be rolled back to. */
  playbookVersion: number | null;
  /** The variant the results favour, preselected in the ship dialog. */
  suggestedWinner: string | null;
}) {
  const [open, setOpen] = useState<Dialogs>(null);
  const close = () => setOpen(null);
  const shipped = experiment.decision?.action === "ship";
  const { status } = experiment;
  return (
    <div className="flex flex-wrap gap-2">
      {status === "draft" ? (
        <Button variant="primary" onClick={() => setOpen("start")}>
          <CirclePlay aria-hidden /> Start
        </Button>
      ) : null}
      {status !== "draft" && !shipped ? (
        <Button variant={status === "running" ? "primary" : "secondary"} onClick={() => setOpen("ship")}>
          <Rocket aria-hidden /> Ship a variant
        </Button>
      ) : null}
      {status === "stopped" && !shipped && !experiment.archivedAt ? (
        <Button variant="secondary" onClick={() => setOpen("start")}>
          <CirclePlay aria-hidden /> Restart
        </Button>
      ) : null}
      {status !== "stopped" ? (
        <Button variant="secondary" onClick={() => setOpen("weights")}>
          <SlidersHorizontal aria-hidden /> Edit weights
        </Button>
      ) : null}
      {status === "running" ? (
        <Button variant="secondary" onClick={() => setOpen("stop")}>
          <CircleStop aria-hidden /> Stop
        </Button>
      ) : null}
      {open === "start" ? <StartDialog experiment={experiment} onClose={close} /> : null}
      {open === "stop" ? <StopDialog experiment={experiment} onClose={close} /> : null}
      {open === "ship" ? (
        <ShipDialog experiment={experiment} playbookVersion={playbookVersion} suggested={suggestedWinner} onClose={close} />
      ) : null}
      {status === "stopped" && !experiment.archivedAt ? (
        <Button variant="secondary" onClick={() => setOpen("archive")}>
          <Archive aria-hidden /> Archive
        </Button>
      ) : null}
      {open === "weights" ? <WeightsDialog experiment={experiment} onClose={close} /> : null}
      {open === "archive" ? <ArchiveDialog experiment={experiment} onClose={close} /> : null}
    </div>
  );
}

/** After any change: the experiment, its results and every list that shows it. */
function useInvalidateExperiments() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
}

function useUpdate(onDone: () => void, success: (experiment: ExperimentDefinition) => string) {
  const trpc = useTRPC();
  const invalidate = useInvalidateExperiments();
  return useMutation(
    trpc.experiments.update.mutationOptions({
      onSuccess: async (experiment) => {
        toast.success(success(experiment));
        await invalidate();
        onDone();
      },
    }),
  );
}

function useDecide(onDone: () => void) {
  const trpc = useTRPC();
  const invalidate = useInvalidateExperiments();
  const invalidateCuration = useInvalidateCuration();
  return useMutation(
    trpc.experiments.decide.mutationOptions({
      onSuccess: async (result) => {
        if (result.rollbackOffer) toast.info(result.message);
        else toast.success(result.message);
        // A rollback wrote a new version of the playbook: its pages must show it.
        await Promise.all([invalidate(), result.rollback ? invalidateCuration() : null]);
        onDone();
      },
    }),
  );
}

/** The frame of each action's dialog: what the action does, its fields, the server's error, Cancel and the action's button. */
function ActionDialog({
  title,
  description,
  onClose,
  error,
  submit,
  children,
}: {
  title: string;
  description?: ReactNode;
  onClose: () => void;
  error: unknown;
  submit: ReactNode;
  children?: ReactNode;
}) {
  return (
    <Dialog open onOpenChange={(next) => (next ? undefined : onClose())}>
      <DialogContent title={title} description={description}>
        <div className="flex flex-col gap-4">
          {children}
          <DialogActions error={error} onCancel={onClose}>
            {submit}
          </DialogActions>
        </div>
      </DialogContent>
    </Dialog>
  );
}

function splitText(experiment: ExperimentDefinition): string {
  return `${experiment.variants.map((variant) => `${variant.key} ${formatShare(variant.weight)}`).join(", ")}; coverage ${formatShare(experiment.coverage)}`;
}

function StartDialog({ experiment, onClose }: { experiment: ExperimentDefinition; onClose: () => void }) {
  const restart = experiment.status === "stopped";
  const nextPhase = (experiment.phase?.number ?? 0) + 1;
  const [confirmed, setConfirmed] = useState(false);
  const mutation = useUpdate(onClose, (after) =>
    restart ? `Restarted “${after.name}” in phase ${after.phase?.number ?? nextPhase}` : `Started “${after.name}”`,
  );
  const patch: UpdateExperimentFields = restart ? { status: "running", confirmNewPhase: true } : { status: "running" };
  return (
    <ActionDialog
      title={restart ? `Restart “${experiment.name}”` : `Start “${experiment.name}”`}
      description={`From now on, agents that ask are assigned a variant: ${splitText(experiment)}.`}
      onClose={onClose}
      error={mutation.error}
      submit={
        <Button
          variant="primary"
          disabled={mutation.isPending || (restart && !confirmed)}
          onClick={() => mutation.mutate({ key: experiment.key, ...patch })}
        >
          <CirclePlay aria-hidden /> {mutation.isPending ? "Starting…" : restart ? `Start phase ${nextPhase}` : "Start experiment"}
        </Button>
      }
    >
      {restart ? (
        <NewPhaseConfirm nextPhase={nextPhase} why="Restarting a stopped experiment" confirmed={confirmed} onConfirmed={setConfirmed} />
      ) : null}
    </ActionDialog>
  );
}

/** A new phase throws away nothing but starts the results again: say so, and have it confirmed. */
function NewPhaseConfirm({
  nextPhase,
  why,
  confirmed,
  onConfirmed,
}: {
  nextPhase: number;
  why: string;
  confirmed: boolean;
  onConfirmed: (confirmed: boolean) => void;
}) {
  const id = useId();
  return (
    <>
      <Notice tone="warning" title={`This starts phase ${nextPhase}`} announce={false}>
        {why} starts phase {nextPhase} with a new seed: every unit is randomised again, and phase {nextPhase} is analysed on its own, never
        pooled with the earlier phases. Its results start from zero.
      </Notice>
      <label htmlFor={id} className="flex items-start gap-2 text-[13px] text-ink">
        <Checkbox id={id} className="mt-0.5" checked={confirmed} onChange={(event) => onConfirmed(event.target.checked)} />I understand that
        phase {nextPhase} starts with a new seed and is analysed on its own.
      </label>
    </>
  );
}

function NoteField({ value, onChange, hint }: { value: string; onChange: (value: string) => void; hint: string }) {
  const id = useId();
  return (
    <Field id={id} label="Note" optional hint={hint}>
      <Textarea {...fieldAria(id, undefined, true)} rows={3} value={value} onChange={(event) => onChange(event.target.value)} />
    </Field>
  );
}

function StopDialog({ experiment, onClose }: { experiment: ExperimentDefinition; onClose: () => void }) {
  const [note, setNote] = useState("");
  const mutation = useDecide(onClose);
  const input: DecideInput = { key: experiment.key, action: "stop", note };
  return (
    <ActionDialog
      title={`Stop “${experiment.name}”`}
      description="Assignment ends: agents that ask get no variant (reason “stopped”). The results stay as they are; you can still ship a variant afterwards."
      onClose={onClose}
      error={mutation.error}
      submit={
        <Button variant="danger" disabled={mutation.isPending} onClick={() => mutation.mutate(input)}>
          <CircleStop aria-hidden /> {mutation.isPending ? "Stopping…" : "Stop experiment"}
        </Button>
      }
    >
      <NoteField value={note} onChange={setNote} hint="Why it stops without a winner, for the history." />
    </ActionDialog>
  );
}

function ArchiveDialog({ experiment, onClose }: { experiment: ExperimentDefinition; onClose: () => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateExperiments();
  const mutation = useMutation(
    trpc.experiments.archive.mutationOptions({
      onSuccess: async () => {
        toast.success(`Experiment “${experiment.name}” archived`);
        onClose();
        await invalidate();
      },
    }),
  );
  return (
    <ActionDialog
      title={`Archive “${experiment.name}”`}
      description="Its results stay as they are, but it cannot run again: retention may then remove its traces and exposures once they are older than the playbook's trace retention."
      onClose={onClose}
      error={mutation.error}
      submit={
        <Button variant="danger" disabled={mutation.isPending} onClick={() => mutation.mutate({ key: experiment.key })}>
          <Archive aria-hidden /> {mutation.isPending ? "Archiving…" : "Archive experiment"}
        </Button>
      }
    />
  );
}

/** The older version a variant pins, when shipping it could roll the playbook back. */
export function rollbackTarget(experiment: ExperimentDefinition, variantKey: string, playbookVersion: number | null): number | null {
  const variant = experiment.variants.find((v) => v.key === variantKey);
  if (!variant || variant.target.kind !== "version" || playbookVersion === null) return null;
  return variant.target.playbookVersion < playbookVersion ? variant.target.playbookVersion : null;
}

function ShipDialog({
  experiment,
  playbookVersion,
  suggested,
  onClose,
}: {
  experiment: ExperimentDefinition;
  playbookVersion: number | null;
  suggested: string | null;
  onClose: () => void;
}) {
  const [variant, setVariant] = useState(suggested ?? experiment.variants[1]?.key ?? experiment.control);
  const [note, setNote] = useState("");
  const [rollback, setRollback] = useState(true);
  const mutation = useDecide(onClose);
  const rollbackId = useId();
  const pinned = rollbackTarget(experiment, variant, playbookVersion);
  return (
    <ActionDialog
      title={`Ship a variant of “${experiment.name}”`}
      description="Records the decision (who, when, which variant, why) and stops the experiment."
      onClose={onClose}
      error={mutation.error}
      submit={
        <Button
          variant="primary"
          disabled={mutation.isPending}
          onClick={() => mutation.mutate({ key: experiment.key, action: "ship", variant, note, rollback: pinned !== null && rollback })}
        >
          <Rocket aria-hidden /> {mutation.isPending ? "Shipping…" : `Ship ${variant}`}
        </Button>
      }
    >
      <div className="flex flex-col gap-1.5">
        <Label htmlFor={`${rollbackId}-variant`}>Variant</Label>
        <Select<string>
          id={`${rollbackId}-variant`}
          className="w-full"
          value={variant}
          onValueChange={setVariant}
          options={experiment.variants.map((v) => ({
            value: v.key,
            label: `${v.key} · ${v.name}`,
            hint: v.key === suggested ? "favoured by the results" : targetLabel(v.target),
            textValue: `${v.key} · ${v.name}`,
          }))}
        />
      </div>
      {pinned !== null ? (
        <div className="rounded-lg border border-line bg-subtle/50 p-3">
          <label htmlFor={rollbackId} className="flex items-start gap-2 text-[13px] text-ink">
            <Checkbox id={rollbackId} className="mt-0.5" checked={rollback} onChange={(event) => setRollback(event.target.checked)} />
            <span>
              Roll “{experiment.playbook}” back to version {pinned}
              <span className="block text-xs text-ink-muted">
                Variant {variant} serves version {pinned}; the playbook is at version {playbookVersion}. The rollback writes version{" "}
                {(playbookVersion ?? 0) + 1} with its own delta in the history; bullets added since are archived, never deleted.
              </span>
            </span>
          </label>
        </div>
      ) : null}
      <NoteField value={note} onChange={setNote} hint="Why this variant, for the history." />
    </ActionDialog>
  );
}

/** "Roll back to version N" after a ship without the rollback: ships the same variant again with it. */
export function RollbackOfferButton({
  experiment,
  variant,
  version,
}: {
  experiment: ExperimentDefinition;
  variant: string;
  version: number;
}) {
  const mutation = useDecide(() => undefined);
  return (
    <Button
      size="sm"
      variant="secondary"
      disabled={mutation.isPending}
      onClick={() =>
        mutation.mutate(
          { key: experiment.key, action: "ship", variant, note: experiment.decision?.note ?? "", rollback: true },
          { onError: (error) => void toast.error(errorMessage(error)) },
        )
      }
    >
      {mutation.isPending ? "Rolling back…" : `Roll back to version ${version}`}
    </Button>
  );
}

function WeightsDialog({ experiment, onClose }: { experiment: ExperimentDefinition; onClose: () => void }) {
  const [draft, setDraft] = useState<ReweightDraft>(() => reweightDraft(experiment));
  const [confirmed, setConfirmed] = useState(false);
  const check = checkReweight(experiment, draft);
  const running = experiment.status === "running";
  const nextPhase = (experiment.phase?.number ?? 0) + 1;
  const mutation = useUpdate(onClose, (after) =>
    running ? `Phase ${after.phase?.number ?? nextPhase} started with the new split` : "Weights saved",
  );
  const ids = useId();
  const changed = check.ok && check.changed;

  return (
    <ActionDialog
      title={running ? "Edit weights and coverage" : "Edit weights and coverage (draft)"}
      description={running ? `Now: ${splitText(experiment)}.` : "The draft takes the new split; nothing has been assigned yet."}
      onClose={onClose}
      error={mutation.error}
      submit={
        <Button
          variant="primary"
          disabled={!changed || mutation.isPending || (running && !confirmed)}
          onClick={() => {
            if (!check.ok || !check.changed) return;
            mutation.mutate({ key: experiment.key, ...check.patch, ...(check.newPhase ? { confirmNewPhase: true } : {}) });
          }}
        >
          {mutation.isPending ? "Saving…" : running && changed ? `Start phase ${nextPhase}` : "Save weights"}
        </Button>
      }
    >
      <ol className="flex flex-col gap-2" aria-label="Weights">
        {experiment.variants.map((variant, index) => (
          <li key={variant.key} className="flex items-center gap-3">
            <Label htmlFor={`${ids}-${index}`} className="min-w-0 flex-1 truncate">
              <span className="font-mono">{variant.key}</span> <span className="font-normal text-ink-muted">{variant.name}</span>
            </Label>
            <Input
              id={`${ids}-${index}`}
              aria-label={`Variant ${variant.key} weight (%)`}
              aria-describedby={`${ids}-total`}
              inputMode="decimal"
              className="w-24 tabular-nums"
              value={draft.weights[index] ?? ""}
              onChange={(event) => setDraft({ ...draft, weights: draft.weights.map((w, i) => (i === index ? event.target.value : w)) })}
            />
            <span className="text-xs text-ink-faint">%</span>
          </li>
        ))}
      </ol>
      <WeightTotal
        id={`${ids}-total`}
        weights={draft.weights}
        onSplitEvenly={() => setDraft({ ...draft, weights: evenWeights(experiment.variants.length).map(percentText) })}
      />
      <Field
        id={`${ids}-coverage`}
        label="Coverage (%)"
        error={check.ok ? undefined : check.coverage}
        hint="Share of all units that enter the experiment."
      >
        <Input
          {...fieldAria(`${ids}-coverage`, check.ok ? undefined : check.coverage, true)}
          inputMode="decimal"
          className="w-28 tabular-nums"
          value={draft.coverage}
          onChange={(event) => setDraft({ ...draft, coverage: event.target.value })}
        />
      </Field>
      {running && changed ? (
        <NewPhaseConfirm
          nextPhase={nextPhase}
          why="Changing the weights or coverage of a running experiment"
          confirmed={confirmed}
          onConfirmed={setConfirmed}
        />
      ) : null}
    </ActionDialog>
  );
}
