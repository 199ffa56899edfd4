// The new-experiment form as data: what a person has typed so far, what is wrong with it (each
// problem under its field), and the experiments.create input it becomes. Pure, so the rules are
// tested without a browser; the server checks the same rules again.
import {
  experimentKeySchema,
  GUARDRAILS,
  MAX_VARIANTS,
  MIN_VARIANTS,
  type CreateExperimentInput,
  type Guardrail,
  type VariantInput,
} from "@/server/experiments/schemas";
import { checkCoverage, checkWeights, duplicateKeys, evenWeights, nextVariantKey, parsePercent, percentText } from "./form-rules";

export type TargetDraft =
  | { kind: "latest" }
  | { kind: "version"; version: number | null }
  | { kind: "noPlaybook" }
  | { kind: "playbook"; playbookName: string | null };

export interface VariantDraft {
  /** React's key for the row: stays put while the variant's own key is edited. */
  id: string;
  key: string;
  name: string;
  target: TargetDraft;
  /** Percentage as typed. */
  weight: string;
}

export interface ExperimentDraft {
  name: string;
  key: string;
  /** Once the key is edited by hand, the name stops rewriting it. */
  keyEdited: boolean;
  hypothesis: string;
  playbookId: string | null;
  variants: VariantDraft[];
  /** Percentage as typed. */
  coverage: string;
  /** Empty: the key. */
  seed: string;
  guardrails: Guardrail[];
  /** The calculator's inputs: the control's expected success rate (%) and the MDE (points). */
  baseline: string;
  mde: string;
  /** Units per variant to read the results at; empty: no plan. */
  planned: string;
}

/** Row ids are v1, v2 …: deterministic, so the server's HTML and the browser's first render agree. */
function nextRowId(variants: readonly VariantDraft[]): string {
  const used = variants.map((variant) => Number(variant.id.slice(1))).filter(Number.isFinite);
  return `v${Math.max(0, ...used) + 1}`;
}

/** A fresh form: control A pinned at the playbook's current version, B on the latest version. */
export function initialDraft(playbookId: string | null, currentVersion: number | null): ExperimentDraft {
  const [a, b] = evenWeights(2).map(percentText);
  return {
    name: "",
    key: "",
    keyEdited: false,
    hypothesis: "",
    playbookId,
    variants: [
      { id: "v1", key: "A", name: "Control", target: { kind: "version", version: currentVersion }, weight: a! },
      { id: "v2", key: "B", name: "Curated", target: { kind: "latest" }, weight: b! },
    ],
    coverage: "100",
    seed: "",
    guardrails: [...GUARDRAILS],
    baseline: "",
    mde: "5",
    planned: "",
  };
}

/** Adds a variant on the latest version and splits the weights evenly again. */
export function addVariant(draft: ExperimentDraft): ExperimentDraft {
  if (draft.variants.length >= MAX_VARIANTS) return draft;
  const key = nextVariantKey(draft.variants.map((variant) => variant.key));
  const variants = [...draft.variants, { id: nextRowId(draft.variants), key, name: "", target: { kind: "latest" } as const, weight: "0" }];
  return splitEvenly({ ...draft, variants });
}

export function removeVariant(draft: ExperimentDraft, id: string): ExperimentDraft {
  if (draft.variants.length <= MIN_VARIANTS) return draft;
  return splitEvenly({ ...draft, variants: draft.variants.filter((variant) => variant.id !== id) });
}

export function splitEvenly(draft: ExperimentDraft): ExperimentDraft {
  const weights = evenWeights(draft.variants.length).map(percentText);
  return { ...draft, variants: draft.variants.map((variant, index) => ({ ...variant, weight: weights[index]! })) };
}

/** Problems by field: "name", "key", "playbook", "coverage", "weights", "seed", "planned", "mde", "baseline", `variants.<id>.key|target`. */
export type DraftProblems = Record<string, string>;

function keyProblem(key: string): string | null {
  const parsed = experimentKeySchema.safeParse(key);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? "key is not a valid slug.");
}

/** The units-per-variant field: empty (no plan) or a whole number ≥ 1. */
export function parsePlanned(text: string): number | null | "invalid" {
  const trimmed = text.trim().replace(/[,\s_]/g, "");
  if (trimmed === "") return null;
  if (!/^\d+$/.test(trimmed)) return "invalid";
  const value = Number(trimmed);
  return value >= 1 && value <= 100_000_000 ? value : "invalid";
}

/** The MDE field, in percentage points (5 → 0.05); null when empty or not a number in (0, 100). */
export function parseMde(text: string): number | null {
  const share = parsePercent(text);
  return share === null || share <= 0 || share >= 1 ? null : share;
}

/** The baseline field, a success rate in % strictly between 0 and 100. */
export function parseBaseline(text: string): number | null {
  const share = parsePercent(text);
  return share === null || share <= 0 || share >= 1 ? null : share;
}

export function draftProblems(draft: ExperimentDraft): DraftProblems {
  const problems: DraftProblems = {};
  if (!draft.name.trim()) problems.name = "Name the experiment.";
  const key = keyProblem(draft.key);
  if (key) problems.key = key;
  if (!draft.playbookId) problems.playbook = "Choose the playbook the experiment runs on.";

  const duplicates = duplicateKeys(draft.variants.map((variant) => variant.key));
  for (const variant of draft.variants) {
    const field = `variants.${variant.id}`;
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(variant.key.trim())) {
      problems[`${field}.key`] = "A variant key is letters and digits, with - _ or . inside (e.g. A, curated-v7).";
    } else if (duplicates.has(variant.key.trim())) {
      problems[`${field}.key`] = `Key "${variant.key.trim()}" is used twice; keys are unique.`;
    }
    if (variant.target.kind === "version" && variant.target.version === null) problems[`${field}.target`] = "Choose the version to pin.";
    if (variant.target.kind === "playbook" && !variant.target.playbookName)
      problems[`${field}.target`] = "Choose the playbook this variant serves.";
  }

  const weights = checkWeights(draft.variants.map((variant) => variant.weight));
  if (!weights.ok) problems.weights = weights.message;
  const coverage = checkCoverage(draft.coverage);
  if (!coverage.ok) problems.coverage = coverage.message;
  if (draft.seed.length > 200) problems.seed = "The seed has at most 200 characters.";
  if (parsePlanned(draft.planned) === "invalid")
    problems.planned = "Planned units per variant is a whole number of at least 1 (or empty for no plan).";
  if (draft.mde.trim() !== "" && parseMde(draft.mde) === null)
    problems.mde = "The MDE is a difference in percentage points above 0 and below 100, e.g. 5.";
  if (draft.baseline.trim() !== "" && parseBaseline(draft.baseline) === null)
    problems.baseline = "The baseline is a success rate in %, above 0 and below 100.";
  return problems;
}

function variantInput(variant: VariantDraft): VariantInput {
  const base = {
    key: variant.key.trim(),
    ...(variant.name.trim() ? { name: variant.name.trim() } : {}),
    weight: round(parsePercent(variant.weight) ?? 0),
  };
  switch (variant.target.kind) {
    case "version":
      return { ...base, playbookVersion: variant.target.version ?? 0 };
    case "latest":
      return { ...base, latest: true };
    case "noPlaybook":
      return { ...base, noPlaybook: true };
    case "playbook":
      return { ...base, playbook: variant.target.playbookName ?? "" };
  }
}

/** Six decimals: 33.33 % is sent as 0.3333, not 0.33329999999999999. */
function round(share: number): number {
  return Math.round(share * 1e6) / 1e6;
}

/** The experiments.create input; call it only when draftProblems is empty. */
export function toCreateInput(draft: ExperimentDraft, playbookName: string, start: boolean): CreateExperimentInput {
  const planned = parsePlanned(draft.planned);
  const mde = parseMde(draft.mde);
  return {
    key: draft.key.trim(),
    name: draft.name.trim(),
    playbook: playbookName,
    hypothesis: draft.hypothesis.trim(),
    status: start ? "running" : "draft",
    coverage: round(parsePercent(draft.coverage) ?? 1),
    ...(draft.seed.trim() ? { seed: draft.seed.trim() } : {}),
    variants: draft.variants.map(variantInput),
    guardrails: GUARDRAILS.filter((metric) => draft.guardrails.includes(metric)),
    minimumDetectableEffect: mde,
    plannedUnitsPerVariant: typeof planned === "number" ? planned : null,
  };
}
