// The curation settings a person can change, with the rule each number must follow and where its
// default comes from. The form and its validation read this one table.
import type { PlaybookSettings } from "@/server/playbooks/schemas";

export type NumberKey =
  | "autoApplyConfidence"
  | "similarityThreshold"
  | "maxContentLength"
  | "tokenBudget"
  | "maxBullets"
  | "curatorFrequency"
  | "pruning.harmfulShare"
  | "pruning.harmfulMinVotes"
  | "pruning.minSuccessRatio"
  | "pruning.successMinObservations";

export interface NumberField {
  key: NumberKey;
  label: string;
  help: string;
  /** A share in [0, 1] with decimals, or a whole number. */
  kind: "ratio" | "whole";
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
    help: "Default 0.7 — the ACE integration spec's minimum confidence for applying a delta. A delta at or above it is applied without review.",
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
    help: "Default 80,000 tokens — the ACE middleware's playbook_token_budget. A delta that takes the active bullets past it is flagged for review.",
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
    help: "Default 10 — the ACE middleware's curator_frequency: the curator runs after every N reflected interactions.",
    kind: "whole",
    min: 1,
    max: 10_000,
    unit: "interactions",
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

export type SettingsDraft = Record<NumberKey, string> & { autoApply: boolean; pruningEnabled: boolean };

export function draftFrom(settings: PlaybookSettings): SettingsDraft {
  return {
    autoApply: settings.autoApply,
    pruningEnabled: settings.pruning.enabled,
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
  const trimmed = text.trim().replace(/,/g, "");
  if (trimmed === "") return field.optional ? { value: null } : { error: "Enter a number." };
  const value = Number(trimmed);
  const range = field.kind === "ratio" ? `between ${field.min} and ${field.max}` : `from ${field.min.toLocaleString("en-US")} to ${field.max.toLocaleString("en-US")}`;
  if (!Number.isFinite(value)) return { error: `Enter a number ${range}.` };
  if (field.kind === "whole" && !Number.isInteger(value)) return { error: `Enter a whole number ${range}.` };
  if (value < field.min || value > field.max) return { error: `Enter a ${field.kind === "whole" ? "whole number" : "number"} ${range}.` };
  return { value };
}
