// The curation and run settings a person can change, with the rule each number must follow and
// where its default comes from. The form and its validation read these tables (the studio budget
// dialog reads the two budget fields too, so both check a budget the same way).
import { RUN_MODES, type PlaybookSettings, type RunMode } from "@/server/playbooks/schemas";

export type NumberKey =
  | "autoApplyConfidence"
  | "similarityThreshold"
  | "maxContentLength"
  | "tokenBudget"
  | "maxBullets"
  | "curatorFrequency"
  | "reflectorRounds"
  | "monthlyTokenBudget"
  | "monthlyCostBudgetUsd"
  | "pruning.harmfulShare"
  | "pruning.harmfulMinVotes"
  | "pruning.minSuccessRatio"
  | "pruning.successMinObservations";

export interface NumberField {
  key: NumberKey;
  label: string;
  help: string;
  /** A share in [0, 1] with decimals, a whole number, or an amount of money (two decimals). */
  kind: "ratio" | "whole" | "amount";
  min: number;
  max: number;
  /** Empty means "no limit" (stored as null). */
  optional?: boolean;
  unit?: string;
}

export const NUMBER_FIELDS: Record<NumberKey, NumberField> = {
  autoApplyConfidence: {
    key: "autoApplyConfidence",
    label: "Confidence threshold",
    help: "Default 0.7 — the ACE integration spec's minimum confidence for applying a delta. A person's delta at or above it is applied without review; deltas from curator runs, pruning, API keys and MCP always wait for review.",
    kind: "ratio",
    min: 0,
    max: 1,
  },
  similarityThreshold: {
    key: "similarityThreshold",
    label: "Near-duplicate threshold",
    help: "Default 0.85 — the ACE design documents' de-duplication threshold. New or edited content at least this similar to a bullet is flagged, with a merge suggested.",
    kind: "ratio",
    min: 0,
    max: 1,
  },
  maxContentLength: {
    key: "maxContentLength",
    label: "Longest bullet",
    help: "Default 1,000 characters — the ACE integration spec's maximum content length. Longer content is refused.",
    kind: "whole",
    min: 20,
    max: 20_000,
    unit: "characters",
  },
  tokenBudget: {
    key: "tokenBudget",
    label: "Token budget",
    help: "Default 80,000 tokens — the ACE middleware's playbook_token_budget. The context agents fetch is cut to it, and a delta that takes the compiled playbook (bullet lines with their counters) past it is flagged for review.",
    kind: "whole",
    min: 100,
    max: 2_000_000,
    unit: "tokens",
  },
  maxBullets: {
    key: "maxBullets",
    label: "Most active bullets",
    help: "Default: no limit. When set, pruning proposes archiving the lowest-scoring bullets beyond it.",
    kind: "whole",
    min: 1,
    max: 1_000_000,
    optional: true,
    unit: "bullets",
  },
  curatorFrequency: {
    key: "curatorFrequency",
    label: "Curator frequency",
    help: "Default 10 — the ACE middleware's curator_frequency: with the curator on automatic, it runs after every N reflected interactions.",
    kind: "whole",
    min: 1,
    max: 10_000,
    unit: "interactions",
  },
  reflectorRounds: {
    key: "reflectorRounds",
    label: "Refinement rounds",
    help: "Default 1. The ACE design documents let the reflector refine its diagnosis up to 5 times (max_reflection_iterations); each round is one more LLM call per trace. The offline rules always make one.",
    kind: "whole",
    min: 1,
    max: 5,
    unit: "rounds",
  },
  monthlyTokenBudget: {
    key: "monthlyTokenBudget",
    label: "Monthly LLM tokens",
    help: "Default: no limit. The integration spec's cost control: a warning at 75 %, and no new reflector or curator run once the month's tokens (in + out) reach it. The offline provider uses none.",
    kind: "whole",
    min: 1_000,
    max: 10_000_000_000,
    optional: true,
    unit: "tokens",
  },
  monthlyCostBudgetUsd: {
    key: "monthlyCostBudgetUsd",
    label: "Monthly LLM cost",
    help: "Default: no limit. The same rule in dollars (the spec's example: $100 a month, alert at $75), estimated from the model's price per token.",
    kind: "amount",
    min: 0.01,
    max: 1_000_000,
    optional: true,
    unit: "USD",
  },
  "pruning.harmfulShare": {
    key: "pruning.harmfulShare",
    label: "Harmful share",
    help: "Default 0.5 — the ACE middleware's prune_threshold: propose archiving a bullet when harmful ÷ (helpful + harmful) is above this…",
    kind: "ratio",
    min: 0,
    max: 1,
  },
  "pruning.harmfulMinVotes": {
    key: "pruning.harmfulMinVotes",
    label: "…after this many votes",
    help: "Default 3 — prune_min_interactions: only once helpful + harmful reaches this.",
    kind: "whole",
    min: 1,
    max: 1_000_000,
    unit: "votes",
  },
  "pruning.minSuccessRatio": {
    key: "pruning.minSuccessRatio",
    label: "Lowest success ratio",
    help: "Default 0.3 — the ACE research summary's rule: propose archiving a bullet whose helpful ÷ all observations is below 30 %…",
    kind: "ratio",
    min: 0,
    max: 1,
  },
  "pruning.successMinObservations": {
    key: "pruning.successMinObservations",
    label: "…after this many observations",
    help: "Default 10 — only once helpful + harmful + neutral reaches this.",
    kind: "whole",
    min: 1,
    max: 1_000_000,
    unit: "observations",
  },
};

export type SwitchKey = "autoApply" | "pruningEnabled" | "tagsNeedReview";

export interface SwitchField {
  key: SwitchKey;
  label: string;
  help: string;
}

export const SWITCH_FIELDS: Record<SwitchKey, SwitchField> = {
  autoApply: {
    key: "autoApply",
    label: "Apply confident deltas automatically",
    help: "Default off. Applies only deltas proposed by a signed-in person or the local operator; text from traces (curator runs, pruning), API keys and MCP always waits for a person, whatever this says. Deltas applied this way are marked auto-applied in the queue and the history. Near-duplicates, limit breaches and stale deltas always wait for a person.",
  },
  pruningEnabled: {
    key: "pruningEnabled",
    label: "Propose pruning by this policy",
    help: "Default off (auto_prune=False in the ACE middleware).",
  },
  tagsNeedReview: {
    key: "tagsNeedReview",
    label: "Review the reflector's counter tags",
    help: "Default off: a helpful/harmful tag is an observation, so the ACE middleware updates the counters at once. On: each reflection's tags wait in the review queue as a delta.",
  },
};

export type ChoiceKey = "reflectorMode" | "curatorMode";

export interface ChoiceField {
  key: ChoiceKey;
  label: string;
  help: string;
  options: readonly { value: RunMode; label: string }[];
}

/** Both run modes offer the same three choices. */
const RUN_MODE_OPTIONS: ChoiceField["options"] = [
  { value: "auto", label: "Automatic" },
  { value: "manual", label: "Manual" },
  { value: "off", label: "Off" },
];

export const CHOICE_FIELDS: Record<ChoiceKey, ChoiceField> = {
  reflectorMode: {
    key: "reflectorMode",
    label: "When to reflect",
    help: "Default automatic — as the ACE middleware reflects after every model response, each trace is reflected as it arrives. Manual: only when someone presses Reflect now. Off: traces are kept, never reflected.",
    options: RUN_MODE_OPTIONS,
  },
  curatorMode: {
    key: "curatorMode",
    label: "When to curate",
    help: "Default automatic — the curator runs once the curator frequency's worth of reflections wait. Manual: only when someone presses Curate now. Off: reflections only update counters.",
    options: RUN_MODE_OPTIONS,
  },
};

export function isRunMode(value: string): value is RunMode {
  return (RUN_MODES as readonly string[]).includes(value);
}

export type SettingsDraft = Record<NumberKey, string> & Record<SwitchKey, boolean> & Record<ChoiceKey, RunMode>;

export function draftFrom(settings: PlaybookSettings): SettingsDraft {
  return {
    autoApply: settings.autoApply,
    pruningEnabled: settings.pruning.enabled,
    tagsNeedReview: settings.tagsNeedReview,
    reflectorMode: settings.reflectorMode,
    curatorMode: settings.curatorMode,
    reflectorRounds: String(settings.reflectorRounds),
    monthlyTokenBudget: settings.monthlyTokenBudget === null ? "" : String(settings.monthlyTokenBudget),
    monthlyCostBudgetUsd: settings.monthlyCostBudgetUsd === null ? "" : String(settings.monthlyCostBudgetUsd),
    autoApplyConfidence: String(settings.autoApplyConfidence),
    similarityThreshold: String(settings.similarityThreshold),
    maxContentLength: String(settings.maxContentLength),
    tokenBudget: String(settings.tokenBudget),
    maxBullets: settings.maxBullets === null ? "" : String(settings.maxBullets),
    curatorFrequency: String(settings.curatorFrequency),
    "pruning.harmfulShare": String(settings.pruning.harmfulShare),
    "pruning.harmfulMinVotes": String(settings.pruning.harmfulMinVotes),
    "pruning.minSuccessRatio": String(settings.pruning.minSuccessRatio),
    "pruning.successMinObservations": String(settings.pruning.successMinObservations),
  };
}

/** The number the person typed, or a sentence saying what is wrong with it. */
export function parseField(field: NumberField, text: string): { value: number | null } | { error: string } {
  // "1,000" and, for money, "$25" read as the numbers they are.
  const trimmed =
    field.kind === "amount"
      ? text
          .trim()
          .replace(/,/g, "")
          .replace(/^\$\s*/, "")
      : text.trim().replace(/,/g, "");
  if (trimmed === "") return field.optional ? { value: null } : { error: "Enter a number." };
  const value = Number(trimmed);
  const range =
    field.kind === "ratio"
      ? `between ${field.min} and ${field.max}`
      : field.kind === "amount"
        ? `from $${field.min} to $${field.max.toLocaleString("en-US")}`
        : `from ${field.min.toLocaleString("en-US")} to ${field.max.toLocaleString("en-US")}`;
  const what = field.kind === "whole" ? "a whole number" : field.kind === "amount" ? "an amount" : "a number";
  if (!Number.isFinite(value)) return { error: `Enter ${field.kind === "whole" ? "a number" : what} ${range}.` };
  if (field.kind === "whole" && !Number.isInteger(value)) return { error: `Enter a whole number ${range}.` };
  if (value < field.min || value > field.max) return { error: `Enter ${what} ${range}.` };
  // Cents are the finest a budget needs; more decimals would only pretend a precision.
  return { value: field.kind === "amount" ? Math.round(value * 100) / 100 : value };
}
