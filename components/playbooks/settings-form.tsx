"use client";
// The settings tab: curation thresholds, limits, the pruning policy, how the reflector and curator
// run and what they may spend, saved as a version (the history says who changed what), and a way
// to propose pruning now.
import { useMutation, useSuspenseQuery } from "@tanstack/react-query";
import { Scissors } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { toast } from "sonner";
import { RoleGate } from "@/components/auth/role-gate";
import { usePermission } from "@/components/auth/session-context";
import { Button, SubmitButton } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { Select } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { reviewHref } from "@/components/shared/review-url";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import type { PlaybookDetail, PlaybookSettingsPatch } from "@/server/playbooks/schemas";
import { errorMessage } from "@/components/ui/errors";
import {
  CHOICE_FIELDS,
  draftFrom,
  isRunMode,
  NUMBER_FIELDS,
  parseField,
  SWITCH_FIELDS,
  type ChoiceKey,
  type NumberKey,
  type SettingsDraft,
  type SwitchKey,
} from "@/components/shared/settings-fields";

export function SettingsForm({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  // Keyed by version: saved elsewhere (or here), the form starts again from what is stored.
  return <SettingsFormBody key={playbook.version} playbook={playbook} />;
}

function SettingsFormBody({ playbook }: { playbook: PlaybookDetail }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const saved = draftFrom(playbook.settings);
  const [draft, setDraft] = useState<SettingsDraft>(saved);
  const [errors, setErrors] = useState<Partial<Record<NumberKey, string>>>({});
  // Everyone may read the settings; only admins change them (the server refuses anyone else).
  const permission = usePermission("playbook.settings");
  const locked = !permission.allowed;
  const dirty = (Object.keys(saved) as (keyof SettingsDraft)[]).some((key) => saved[key] !== draft[key]);

  const mutation = useMutation(
    trpc.playbook.updateSettings.mutationOptions({
      onSuccess: async (result) => {
        if (result.changed.length === 0) toast.info("Nothing changed.");
        else toast.success(`Settings saved as version ${result.version}`, { description: result.changed.join(" · ") });
        await invalidate();
      },
    }),
  );

  function set<K extends keyof SettingsDraft>(key: K, value: SettingsDraft[K]) {
    setDraft((previous) => ({ ...previous, [key]: value }));
    if (key in errors) setErrors((previous) => ({ ...previous, [key]: undefined }));
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const found: Partial<Record<NumberKey, string>> = {};
    const values: Partial<Record<NumberKey, number | null>> = {};
    for (const field of Object.values(NUMBER_FIELDS)) {
      const parsed = parseField(field, draft[field.key]);
      if ("error" in parsed) found[field.key] = parsed.error;
      else values[field.key] = parsed.value;
    }
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    mutation.mutate({ playbookId: playbook.id, settings: patchOf(values, draft, playbook) });
  }

  const field = (key: NumberKey) => (
    <NumberRow key={key} fieldKey={key} value={draft[key]} error={errors[key]} onChange={(value) => set(key, value)} />
  );
  const toggle = (key: SwitchKey) => <SwitchRow key={key} fieldKey={key} checked={draft[key]} onChange={(value) => set(key, value)} />;
  const choice = (key: ChoiceKey) => <ChoiceRow key={key} fieldKey={key} value={draft[key]} onChange={(value) => set(key, value)} />;

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-6 pb-24">
      {permission.allowed ? null : (
        <Notice tone="info" title="Only admins change these settings" announce={false}>
          {permission.reason}
        </Notice>
      )}
      <Group title="Auto-apply" description="Let confident proposals through without a reviewer." locked={locked}>
        {toggle("autoApply")}
        {field("autoApplyConfidence")}
      </Group>
      <Group title="De-duplication and limits" description="Checked for every proposal and every edit." locked={locked}>
        {field("similarityThreshold")}
        {field("maxContentLength")}
        {field("tokenBudget")}
        {field("maxBullets")}
      </Group>
      <Group
        title="Pruning"
        description="Pruning only ever proposes: each removal waits in the queue for approval."
        locked={locked}
        after={<PruneNow playbook={playbook} dirty={dirty} />}
      >
        {toggle("pruningEnabled")}
        {field("pruning.harmfulShare")}
        {field("pruning.harmfulMinVotes")}
        {field("pruning.minSuccessRatio")}
        {field("pruning.successMinObservations")}
      </Group>
      <Group
        title="Reflector"
        description="Reads each trace the agent reports, diagnoses it and tags the bullets it cited."
        locked={locked}
      >
        {choice("reflectorMode")}
        {field("reflectorRounds")}
        {toggle("tagsNeedReview")}
      </Group>
      <Group title="Curator" description="Turns waiting reflections into a proposed delta; a person approves it." locked={locked}>
        {choice("curatorMode")}
        {field("curatorFrequency")}
      </Group>
      <Group
        title="Monthly LLM budget"
        description="For this playbook's reflector and curator runs, by calendar month (UTC). The studio-wide budget is on the Runs page."
        locked={locked}
      >
        {field("monthlyTokenBudget")}
        {field("monthlyCostBudgetUsd")}
      </Group>

      {mutation.isError ? (
        <Notice tone="danger" title="The settings were not saved">
          {errorMessage(mutation.error)}
        </Notice>
      ) : null}

      {locked ? null : (
        <div
          // Stays in view only while there is something to save.
          className={cn(
            "z-10 -mx-4 flex items-center justify-end gap-2 px-4 py-3 sm:mx-0 sm:px-5",
            dirty && "sticky bottom-0 border-t border-line bg-canvas sm:rounded-card sm:border sm:shadow-card",
          )}
        >
          <p className="mr-auto text-[13px] text-ink-muted" aria-live="polite">
            {dirty ? "Unsaved changes. Saving records a version with what changed." : "Saved. Changes are recorded in the history."}
          </p>
          <Button
            variant="secondary"
            disabled={!dirty || mutation.isPending}
            onClick={() => {
              setDraft(saved);
              setErrors({});
              mutation.reset();
            }}
          >
            Discard
          </Button>
          <SubmitButton pending={mutation.isPending} pendingLabel="Saving…" disabled={!dirty}>
            Save changes
          </SubmitButton>
        </div>
      )}
    </form>
  );
}

/** Only what changed: the server would otherwise record every field as set again. */
function patchOf(values: Partial<Record<NumberKey, number | null>>, draft: SettingsDraft, playbook: PlaybookDetail): PlaybookSettingsPatch {
  const stored = playbook.settings;
  const patch: PlaybookSettingsPatch = {};
  const pruning: NonNullable<PlaybookSettingsPatch["pruning"]> = {};
  const changed = <T,>(value: T | undefined, before: T): value is T => value !== undefined && value !== before;
  if (draft.autoApply !== stored.autoApply) patch.autoApply = draft.autoApply;
  if (changed(values.autoApplyConfidence, stored.autoApplyConfidence)) patch.autoApplyConfidence = values.autoApplyConfidence as number;
  if (changed(values.similarityThreshold, stored.similarityThreshold)) patch.similarityThreshold = values.similarityThreshold as number;
  if (changed(values.maxContentLength, stored.maxContentLength)) patch.maxContentLength = values.maxContentLength as number;
  if (changed(values.tokenBudget, stored.tokenBudget)) patch.tokenBudget = values.tokenBudget as number;
  if (changed(values.maxBullets, stored.maxBullets)) patch.maxBullets = values.maxBullets ?? null;
  if (changed(values.curatorFrequency, stored.curatorFrequency)) patch.curatorFrequency = values.curatorFrequency as number;
  if (changed(values.reflectorRounds, stored.reflectorRounds)) patch.reflectorRounds = values.reflectorRounds as number;
  if (changed(values.monthlyTokenBudget, stored.monthlyTokenBudget)) patch.monthlyTokenBudget = values.monthlyTokenBudget ?? null;
  if (changed(values.monthlyCostBudgetUsd, stored.monthlyCostBudgetUsd)) patch.monthlyCostBudgetUsd = values.monthlyCostBudgetUsd ?? null;
  if (draft.reflectorMode !== stored.reflectorMode) patch.reflectorMode = draft.reflectorMode;
  if (draft.curatorMode !== stored.curatorMode) patch.curatorMode = draft.curatorMode;
  if (draft.tagsNeedReview !== stored.tagsNeedReview) patch.tagsNeedReview = draft.tagsNeedReview;
  if (draft.pruningEnabled !== stored.pruning.enabled) pruning.enabled = draft.pruningEnabled;
  if (changed(values["pruning.harmfulShare"], stored.pruning.harmfulShare)) pruning.harmfulShare = values["pruning.harmfulShare"] as number;
  if (changed(values["pruning.harmfulMinVotes"], stored.pruning.harmfulMinVotes))
    pruning.harmfulMinVotes = values["pruning.harmfulMinVotes"] as number;
  if (changed(values["pruning.minSuccessRatio"], stored.pruning.minSuccessRatio))
    pruning.minSuccessRatio = values["pruning.minSuccessRatio"] as number;
  if (changed(values["pruning.successMinObservations"], stored.pruning.successMinObservations)) {
    pruning.successMinObservations = values["pruning.successMinObservations"] as number;
  }
  if (Object.keys(pruning).length > 0) patch.pruning = pruning;
  return patch;
}

function PruneNow({ playbook, dirty }: { playbook: PlaybookDetail; dirty: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const invalidate = useInvalidateCuration();
  const mutation = useMutation(
    trpc.delta.proposePruning.mutationOptions({
      onSuccess: async (result) => {
        await invalidate();
        if (result.delta) {
          toast.success(result.delta.message);
          router.push(reviewHref(playbook.id, { deltaId: result.delta.deltaId }));
        }
      },
    }),
  );
  const why = mutation.data && !mutation.data.delta ? mutation.data.reason : null;
  return (
    <div className="flex flex-col gap-2 px-4 py-4 sm:px-5">
      <div className="flex flex-wrap items-center gap-3">
        <RoleGate action="delta.prune">
          <Button variant="secondary" disabled={mutation.isPending || dirty} onClick={() => mutation.mutate({ playbookId: playbook.id })}>
            <Scissors aria-hidden /> {mutation.isPending ? "Looking for bullets to prune…" : "Propose pruning now"}
          </Button>
        </RoleGate>
        <p className="text-xs text-ink-muted">
          {dirty
            ? "Save your changes first: pruning uses the saved policy."
            : "Checks every active bullet against the saved policy and proposes one delta."}
        </p>
      </div>
      {why ? (
        <Notice tone="info" compact title="Nothing was proposed">
          {why}
        </Notice>
      ) : null}
      {mutation.isError ? (
        <Notice tone="danger" compact>
          {errorMessage(mutation.error)}
        </Notice>
      ) : null}
    </div>
  );
}

function Group({
  title,
  description,
  locked,
  after,
  children,
}: {
  title: string;
  description?: string;
  /** Read-only: every field disabled (the person's role may not change settings). */
  locked: boolean;
  /** Below the fields and outside the lock: an action of its own (pruning now). */
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-label={title} className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 className="text-sm font-semibold text-ink">{title}</h2>
        {description ? <p className="mt-0.5 text-[13px] text-ink-muted">{description}</p> : null}
      </header>
      <div className="divide-y divide-line">
        <fieldset disabled={locked} className="min-w-0 divide-y divide-line">
          {children}
        </fieldset>
        {after}
      </div>
    </section>
  );
}

function Row({ id, label, help, error, control }: { id: string; label: string; help: string; error?: string; control: ReactNode }) {
  return (
    <div className="grid gap-2 px-4 py-4 sm:grid-cols-[minmax(0,1fr)_14rem] sm:gap-6 sm:px-5">
      <div className="min-w-0">
        <label htmlFor={id} className="text-sm font-medium text-ink">
          {label}
        </label>
        <p id={`${id}-help`} className="mt-0.5 text-[13px] leading-relaxed text-ink-muted">
          {help}
        </p>
      </div>
      <div className="flex flex-col gap-1 sm:items-end">
        {control}
        {error ? (
          <p id={`${id}-error`} className="text-xs font-medium text-danger sm:text-right">
            {error}
          </p>
        ) : null}
      </div>
    </div>
  );
}

function NumberRow({
  fieldKey,
  value,
  error,
  onChange,
}: {
  fieldKey: NumberKey;
  value: string;
  error?: string;
  onChange: (value: string) => void;
}) {
  const id = useId();
  const field = NUMBER_FIELDS[fieldKey];
  return (
    <Row
      id={id}
      label={field.label}
      help={field.help}
      error={error}
      control={
        <div className="flex w-full items-center gap-2 sm:w-auto">
          <Input
            id={id}
            inputMode={field.kind === "whole" ? "numeric" : "decimal"}
            value={value}
            placeholder={field.optional ? "No limit" : undefined}
            onChange={(event) => onChange(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${id}-error ${id}-help` : `${id}-help`}
            className="w-full text-right tabular-nums sm:w-32"
          />
          {field.unit ? (
            <span className="w-20 shrink-0 text-xs text-ink-faint">{field.unit}</span>
          ) : (
            <span className="w-20 shrink-0" aria-hidden />
          )}
        </div>
      }
    />
  );
}

function SwitchRow({ fieldKey, checked, onChange }: { fieldKey: SwitchKey; checked: boolean; onChange: (value: boolean) => void }) {
  const id = useId();
  const field = SWITCH_FIELDS[fieldKey];
  return (
    <Row
      id={id}
      label={field.label}
      help={field.help}
      control={
        <div className="flex items-center gap-2">
          <Switch id={id} checked={checked} onCheckedChange={onChange} aria-describedby={`${id}-help`} />
          <span className="w-8 text-[13px] text-ink-muted" aria-hidden>
            {checked ? "On" : "Off"}
          </span>
        </div>
      }
    />
  );
}

function ChoiceRow({
  fieldKey,
  value,
  onChange,
}: {
  fieldKey: ChoiceKey;
  value: SettingsDraft[ChoiceKey];
  onChange: (value: SettingsDraft[ChoiceKey]) => void;
}) {
  const id = useId();
  const field = CHOICE_FIELDS[fieldKey];
  return (
    <Row
      id={id}
      label={field.label}
      help={field.help}
      control={
        <div className="flex w-full items-center gap-2 sm:w-auto">
          <Select
            id={id}
            value={value}
            onValueChange={(next: string) => {
              if (isRunMode(next)) onChange(next);
            }}
            options={field.options}
            className="w-full sm:w-32"
          />
          <span className="w-20 shrink-0" aria-hidden />
        </div>
      }
    />
  );
}
