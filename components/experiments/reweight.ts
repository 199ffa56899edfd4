// Changing the weights or coverage of an existing experiment: the update input (every variant sent
// back with its own target, only the weights new), and whether the change starts a new phase (a
// running experiment re-randomises its units, and the new phase is analysed on its own).
import type { ExperimentDefinition, UpdateExperimentFields, VariantInput, VariantView } from "@/server/experiments/schemas";
import { checkCoverage, checkWeights, parsePercent, percentText } from "./form-rules";

export interface ReweightDraft {
  /** Percentages as typed, in variant order. */
  weights: string[];
  coverage: string;
}

export function reweightDraft(definition: Pick<ExperimentDefinition, "variants" | "coverage">): ReweightDraft {
  return { weights: definition.variants.map((variant) => percentText(variant.weight)), coverage: percentText(definition.coverage) };
}

/** A variant as the API takes it back: its key, name and target as they are, with a new weight. */
export function variantBack(variant: VariantView, weight: number): VariantInput {
  const base = { key: variant.key, name: variant.name, weight };
  if (variant.target.kind === "version") return { ...base, playbookVersion: variant.target.playbookVersion };
  if (variant.target.kind === "noPlaybook") return { ...base, noPlaybook: true };
  if (variant.target.kind === "playbook") return { ...base, playbook: variant.playbook ?? variant.target.playbook ?? "" };
  return { ...base, latest: true };
}

export type ReweightCheck =
  | { ok: false; weights?: string; coverage?: string }
  | { ok: true; changed: false }
  | { ok: true; changed: true; newPhase: boolean; patch: Pick<UpdateExperimentFields, "variants" | "coverage"> };

const SAME = 1e-9;

/**
 * What the edit amounts to: problems to show, nothing changed, or the patch to send and whether it
 * starts a new phase (only a running experiment does; a draft simply takes the new numbers).
 */
export function checkReweight(
  definition: Pick<ExperimentDefinition, "variants" | "coverage" | "status">,
  draft: ReweightDraft,
): ReweightCheck {
  const weights = checkWeights(draft.weights);
  const coverage = checkCoverage(draft.coverage);
  if (!weights.ok || !coverage.ok) {
    return { ok: false, ...(weights.ok ? {} : { weights: weights.message }), ...(coverage.ok ? {} : { coverage: coverage.message }) };
  }
  // A field still showing the stored value as the form wrote it (1/3 as "33.33") keeps the stored value.
  const next = draft.weights.map((text, index) => {
    const stored = definition.variants[index]?.weight ?? 0;
    return text.trim() === percentText(stored) ? stored : Math.round((parsePercent(text) ?? 0) * 1e6) / 1e6;
  });
  const nextCoverage = draft.coverage.trim() === percentText(definition.coverage) ? definition.coverage : coverage.coverage;
  const weightsChanged = next.some((weight, index) => Math.abs(weight - (definition.variants[index]?.weight ?? 0)) > SAME);
  const coverageChanged = Math.abs(nextCoverage - definition.coverage) > SAME;
  if (!weightsChanged && !coverageChanged) return { ok: true, changed: false };
  const patch: Pick<UpdateExperimentFields, "variants" | "coverage"> = {
    ...(weightsChanged ? { variants: definition.variants.map((variant, index) => variantBack(variant, next[index]!)) } : {}),
    ...(coverageChanged ? { coverage: nextCoverage } : {}),
  };
  return { ok: true, changed: true, newPhase: definition.status === "running", patch };
}
