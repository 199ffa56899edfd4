"use client";
// /experiments/new: name and key, hypothesis, playbook, 2–10 variants (each with what it serves and
// its weight), coverage, seed, guardrails, and the sample-size calculator. Problems show under their
// fields as one types, after the first attempt to create; the server checks everything again.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { FlaskConical, Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Button, buttonClass } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Breadcrumb } from "@/components/ui/detail-parts";
import { errorMessage, fieldErrors } from "@/components/ui/errors";
import { LoadFailed } from "@/components/ui/load-failed";
import { Notice } from "@/components/ui/notice";
import { LoadingStatus, Skeleton, Skeletons } from "@/components/ui/skeleton";
import { useTRPC } from "@/components/trpc/client";
import { GUARDRAILS, MAX_VARIANTS, MIN_VARIANTS, type Guardrail } from "@/server/experiments/schemas";
import {
  addVariant,
  draftProblems,
  initialDraft,
  removeVariant,
  splitEvenly,
  toCreateInput,
  type ExperimentDraft,
  type VariantDraft,
} from "./draft";
import { experimentHref } from "./experiment-url";
import { FormSection, PlaybookField, TextAreaField, TextField, type PlaybookChoice } from "./form-fields";
import { slugFromName } from "./form-rules";
import { METRIC_META } from "./prepare";
import { SampleSizeSection } from "./sample-size-section";
import { VariantRow } from "./variant-row";
import { WeightTotal } from "./weight-total";

/** The form opens once the playbooks are known (the page prefetches them): the chosen one's version seeds the pinned control. */
export function NewExperimentForm({ initialPlaybookId }: { initialPlaybookId: string | null }) {
  const trpc = useTRPC();
  const playbooks = useQuery(trpc.playbook.list.queryOptions());
  if (playbooks.isPending) {
    return (
      <LoadingStatus label="Loading the playbooks…" className="mx-auto flex max-w-4xl flex-col gap-5 pb-16 pt-8">
        <Skeleton className="h-8 w-56" />
        <Skeletons count={2} className="h-64 w-full rounded-card" />
      </LoadingStatus>
    );
  }
  if (playbooks.isError) {
    return (
      <div className="mx-auto max-w-4xl pt-8">
        <LoadFailed what="playbooks" error={playbooks.error} onRetry={() => void playbooks.refetch()} />
      </div>
    );
  }
  return <ExperimentForm playbooks={playbooks.data} initialPlaybookId={initialPlaybookId} />;
}

function ExperimentForm({ playbooks, initialPlaybookId }: { playbooks: readonly PlaybookChoice[]; initialPlaybookId: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<ExperimentDraft>(() => {
    const playbook = playbooks.find((p) => p.id === initialPlaybookId) ?? null;
    return initialDraft(playbook?.id ?? null, playbook?.version ?? null);
  });
  const [attempted, setAttempted] = useState(false);
  const playbook = playbooks.find((p) => p.id === draft.playbookId) ?? null;

  const mutation = useMutation(
    trpc.experiments.create.mutationOptions({
      onSuccess: async (created) => {
        toast.success(created.status === "running" ? `Started “${created.name}”` : `Created “${created.name}” as a draft`);
        await queryClient.invalidateQueries({ queryKey: trpc.experiments.pathKey() });
        router.push(experimentHref(created.key));
      },
    }),
  );
  const serverErrors = fieldErrors(mutation.error);
  const problems = attempted ? draftProblems(draft) : {};
  const problemOf = (field: string): string | undefined => problems[field] ?? serverErrors[field];

  function patch(next: Partial<ExperimentDraft>) {
    setDraft((current) => ({ ...current, ...next }));
  }
  function patchVariant(id: string, next: Partial<VariantDraft>) {
    setDraft((current) => ({
      ...current,
      variants: current.variants.map((variant) => (variant.id === id ? { ...variant, ...next } : variant)),
    }));
  }
  function choosePlaybook(playbookId: string) {
    const chosen = playbooks.find((p) => p.id === playbookId);
    setDraft((current) => ({
      ...current,
      playbookId,
      // Versions belong to the playbook: pinned variants move to the new one's current version.
      variants: current.variants.map((variant) =>
        variant.target.kind === "version" ? { ...variant, target: { kind: "version", version: chosen?.version ?? null } } : variant,
      ),
    }));
  }

  function submit(start: boolean) {
    setAttempted(true);
    if (Object.keys(draftProblems(draft)).length > 0 || !playbook) {
      toast.error("Some fields need attention: see the messages under them.");
      return;
    }
    mutation.mutate(toCreateInput(draft, playbook.name, start));
  }

  const weightsId = useId();
  return (
    <form
      noValidate
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        submit(false);
      }}
      className="mx-auto max-w-4xl pb-16"
    >
      <div className="pb-5 pt-8">
        <Breadcrumb items={[{ label: "Experiments", href: "/experiments" }, { label: "New experiment" }]} />
        <h1 className="text-2xl font-semibold tracking-tight text-ink">New experiment</h1>
        <p className="mt-1 max-w-2xl text-sm text-ink-muted">
          Agents ask which variant to use for a unit (an agent, a user, a task) and always get the same one: GrowthBook&apos;s hashing
          (version 2), so a GrowthBook SDK assigns the same variant offline.
        </p>
      </div>

      <div className="flex flex-col gap-5">
        <FormSection title="Experiment">
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              label="Name"
              value={draft.name}
              error={problemOf("name")}
              placeholder="e.g. Curated lessons vs. version 4"
              onChange={(name) => patch({ name, ...(draft.keyEdited ? {} : { key: slugFromName(name) }) })}
            />
            <TextField
              label="Key"
              value={draft.key}
              error={problemOf("key")}
              mono
              hint="The slug agents and SDKs use; from the name until you edit it."
              onChange={(key) => patch({ key, keyEdited: true })}
            />
          </div>
          <PlaybookField playbooks={playbooks} value={draft.playbookId} onChange={choosePlaybook} error={problemOf("playbook")} />
          <TextAreaField
            label="Hypothesis"
            optional
            value={draft.hypothesis}
            error={problemOf("hypothesis")}
            placeholder="e.g. The curated lessons on refunds raise the success rate by 5 points without costing more tokens."
            onChange={(hypothesis) => patch({ hypothesis })}
          />
        </FormSection>

        <FormSection
          title="Variants"
          description={`${MIN_VARIANTS} to ${MAX_VARIANTS} variants; the first is the control every other variant is compared with.`}
        >
          <ol className="flex flex-col gap-3" aria-label="Variants">
            {draft.variants.map((variant, index) => (
              <VariantRow
                key={variant.id}
                index={index}
                variant={variant}
                playbookId={draft.playbookId}
                currentVersion={playbook?.version ?? null}
                problems={{ key: problemOf(`variants.${variant.id}.key`), target: problemOf(`variants.${variant.id}.target`) }}
                weightInvalid={attempted && Boolean(problems.weights)}
                weightsId={weightsId}
                canRemove={draft.variants.length > MIN_VARIANTS}
                onChange={(next) => patchVariant(variant.id, next)}
                onRemove={() => setDraft((current) => removeVariant(current, variant.id))}
              />
            ))}
          </ol>
          <WeightTotal
            id={weightsId}
            weights={draft.variants.map((variant) => variant.weight)}
            onSplitEvenly={() => setDraft(splitEvenly)}
          />
          {serverErrors.variants ? <p className="text-xs font-medium text-danger">{serverErrors.variants}</p> : null}
          <div>
            <Button size="sm" variant="ghost" disabled={draft.variants.length >= MAX_VARIANTS} onClick={() => setDraft(addVariant)}>
              <Plus aria-hidden /> Add a variant
            </Button>
          </div>
        </FormSection>

        <FormSection title="Traffic">
          <div className="grid gap-4 sm:grid-cols-2">
            <TextField
              label="Coverage (%)"
              value={draft.coverage}
              error={problemOf("coverage")}
              inputMode="decimal"
              hint="Share of all units that enter the experiment; the others get no variant."
              onChange={(coverage) => patch({ coverage })}
            />
            <TextField
              label="Seed"
              optional
              value={draft.seed}
              error={problemOf("seed")}
              mono
              placeholder={draft.key || "the key"}
              hint="Hashing seed; empty uses the key."
              onChange={(seed) => patch({ seed })}
            />
          </div>
        </FormSection>

        <FormSection
          title="Metrics"
          description="The success rate decides; guardrails are watched for harm (a variant significantly worse is flagged)."
        >
          <p className="text-[13px] text-ink">
            <span className="font-medium">Primary:</span> {METRIC_META.successRate.label} ({METRIC_META.successRate.unit})
          </p>
          <fieldset>
            <legend className="text-[13px] font-medium text-ink">Guardrails</legend>
            <div className="mt-2 flex flex-wrap gap-x-5 gap-y-2">
              {GUARDRAILS.map((metric) => (
                <GuardrailCheckbox
                  key={metric}
                  metric={metric}
                  checked={draft.guardrails.includes(metric)}
                  onChange={(checked) =>
                    patch({ guardrails: checked ? [...draft.guardrails, metric] : draft.guardrails.filter((m) => m !== metric) })
                  }
                />
              ))}
            </div>
          </fieldset>
        </FormSection>

        <SampleSizeSection
          draft={draft}
          problems={{ baseline: problemOf("baseline"), mde: problemOf("mde"), planned: problemOf("planned") }}
          onChange={patch}
        />

        {mutation.error && Object.keys(serverErrors).length === 0 ? (
          <Notice tone="danger" title="The experiment was not created">
            {errorMessage(mutation.error)}
          </Notice>
        ) : null}

        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Link href="/experiments" className={buttonClass("ghost")}>
            Cancel
          </Link>
          <Button type="submit" variant="secondary" disabled={mutation.isPending}>
            Create as draft
          </Button>
          <Button variant="primary" disabled={mutation.isPending} onClick={() => submit(true)}>
            <FlaskConical aria-hidden /> {mutation.isPending ? "Creating…" : "Create and start"}
          </Button>
        </div>
      </div>
    </form>
  );
}

function GuardrailCheckbox({ metric, checked, onChange }: { metric: Guardrail; checked: boolean; onChange: (checked: boolean) => void }) {
  const id = useId();
  return (
    <label htmlFor={id} className="flex items-center gap-2 text-[13px] text-ink">
      <Checkbox id={id} checked={checked} onChange={(event) => onChange(event.target.checked)} />
      {METRIC_META[metric].label} <span className="text-ink-faint">({METRIC_META[metric].unit})</span>
    </label>
  );
}
