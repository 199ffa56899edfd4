// The Curator's delta operations and the playbook state they are merged into. The Curator never
// rewrites a playbook: it proposes these small operations and the engine applies them deterministically.
import type { BulletState, SectionState, VersionChange } from "../history";
import type { SimilarityIndex } from "../similarity";

export const DELTA_OPERATION_TYPES = [
  "add",
  "update",
  "remove",
  "restore",
  "merge",
  "tag",
  "pin",
  "unpin",
  "add_section",
  "rename_section",
  "move_section",
  "remove_section",
] as const;
export type DeltaOperationType = (typeof DELTA_OPERATION_TYPES)[number];

/** A new bullet at the end of a section, with the next id of the playbook's one counter. */
export interface AddOperation {
  type: "add";
  /** Section name (an id or a differently cased name is accepted too). */
  section: string;
  content: string;
  /**
   * The counters the bullet starts with (whole numbers from 0; absent is 0): a bullet an external
   * loop added and already counted (proposal-diff.ts) keeps what it counted.
   */
  helpful?: number;
  harmful?: number;
  neutral?: number;
}

/** New content and/or a new place: another section (at its end, or at `position`), or a reorder. */
export interface UpdateOperation {
  type: "update";
  bulletId: string;
  content?: string;
  section?: string;
  /** 0-based index among the target section's active bullets; past the end means the end. */
  position?: number;
}

/** Soft delete: the bullet is archived with the reason, and can be restored. */
export interface RemoveOperation {
  type: "remove";
  bulletId: string;
  reason: string;
}

export interface RestoreOperation {
  type: "restore";
  bulletId: string;
}

/**
 * The kept bullet (`into`) takes the merged content and the counters summed over every bullet;
 * the others are archived with `mergedInto`. `into` may or may not be listed in `bulletIds`.
 */
export interface MergeOperation {
  type: "merge";
  bulletIds: readonly string[];
  into: string;
  content: string;
  /** Archive reason of the sources; default "Merged into [<into>]". */
  reason?: string;
}

/** Counter increments; negative values correct earlier tags, but no counter may drop below 0. */
export interface TagOperation {
  type: "tag";
  bulletId: string;
  helpful?: number;
  harmful?: number;
  neutral?: number;
}

/** Ranks an active bullet first in the compiled context, whatever its counters say. */
export interface PinOperation {
  type: "pin";
  bulletId: string;
}

export interface UnpinOperation {
  type: "unpin";
  bulletId: string;
}

export interface AddSectionOperation {
  type: "add_section";
  name: string;
  /** Id prefix for the section's bullets; default slugForSection(name). */
  slug?: string;
}

export interface RenameSectionOperation {
  type: "rename_section";
  section: string;
  name: string;
}

export interface MoveSectionOperation {
  type: "move_section";
  section: string;
  /** 0-based index in the playbook's section order; past the end means the end. */
  position: number;
}

/**
 * Deletes an empty section: one no bullet is in, active or archived (archived bullets keep their
 * section as part of their history, so a section holding any stays).
 */
export interface RemoveSectionOperation {
  type: "remove_section";
  section: string;
}

export type DeltaOperation =
  | AddOperation
  | UpdateOperation
  | RemoveOperation
  | RestoreOperation
  | MergeOperation
  | TagOperation
  | PinOperation
  | UnpinOperation
  | AddSectionOperation
  | RenameSectionOperation
  | MoveSectionOperation
  | RemoveSectionOperation;

/**
 * A playbook as the engine sees it. Bullets are keyed by externalId so an operation finds its
 * bullet without a scan; a bullet's place is (sectionId, position), read in (position, externalId) order.
 */
export interface PlaybookState {
  /** Ordered by position. */
  sections: readonly SectionState[];
  bullets: ReadonlyMap<string, BulletState>;
  /** The number the next added bullet gets: highest id suffix in use + 1. */
  nextIdNumber: number;
}

export interface EngineOptions {
  /** Longest bullet content, in characters; longer is an error. Default 1000. */
  maxContentLength?: number;
  /** Near-duplicate threshold (inclusive). Default 0.85. Above 1 (scores never are): no search at all. */
  similarityThreshold?: number;
  /**
   * Index of the state's active bullets, or a function giving it, called only when an operation
   * needs a near-duplicate search (building one for 10,000 bullets takes most of a second). Services
   * should keep one per playbook (see syncSimilarityIndex); without it the engine builds the local
   * n-gram index for each validation. The engine only queries it; bullets the delta writes go to a
   * separate overlay (index.empty()).
   */
  similarity?: SimilarityIndex | (() => SimilarityIndex);
  /**
   * When set, a delta that takes the active bullets past this many tokens of the compiled playbook
   * (their ACE lines with counters, compiledBulletText) gets a warning.
   */
  tokenBudget?: number;
  /** Default: countTokens from ../tokens (o200k_base). */
  countTokens?: (text: string) => number;
  /** Tokens of the state's active bullets' compiled lines when the caller has them; saves counting them all. */
  stateTokenCount?: number;
  /** Id for a section created by add_section; injected so results are deterministic. */
  newSectionId: () => string;
}

export const DEFAULT_MAX_CONTENT_LENGTH = 1000;
export const DEFAULT_SIMILARITY_THRESHOLD = 0.85;
/** Pinned bullets a playbook may have: enough for the rules every task needs, few enough to leave the budget to the ranking. */
export const MAX_PINNED_BULLETS = 50;

export const FINDING_KINDS = [
  "unknown_bullet",
  "archived_bullet",
  "not_archived",
  "duplicate_id",
  "unknown_section",
  "section_exists",
  "section_not_empty",
  "invalid_name",
  "invalid_slug",
  "invalid_position",
  "invalid_counter",
  "contradiction",
  "content_too_long",
  "empty_content",
  "negative_counter",
  "no_change",
  "near_duplicate",
  "token_budget",
  "pin_limit",
  /** Model-written content that reads like instructions to the agent (server/ace/safety.ts); never found by the engine. */
  "prompt_injection",
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export type FindingSeverity = "error" | "warning";

export interface Finding {
  /** 0-based index of the operation in the delta (messages count from 1). */
  operationIndex: number;
  severity: FindingSeverity;
  kind: FindingKind;
  /** A sentence a person can act on, naming the operation: "Operation 3 (update [str-00004]): …". */
  message: string;
  /**
   * The other operation (0-based): of a contradiction, or of a near-duplicate inside the delta (the
   * earlier operation whose bullet the content resembles; such a finding has no matchedBulletId).
   */
  relatedOperationIndex?: number;
  /** near_duplicate: the existing bullet the content resembles (one the playbook has before the delta). */
  matchedBulletId?: string;
  similarity?: number;
  /** near_duplicate: a merge that would fold the new content into the existing bullet instead. */
  suggestion?: MergeOperation;
  /** prompt_injection: what was found (InjectionKind), the phrase, and the decoding steps that revealed it. */
  injection?: { kind: string; phrase: string; revealedBy: string[] };
}

export interface DeltaValidation {
  /** No errors (warnings allowed). */
  ok: boolean;
  /** Every finding, by operation then in the order found. */
  findings: Finding[];
  /** findings grouped per operation; same length as the delta. */
  byOperation: Finding[][];
}

export interface DeltaResult {
  state: PlaybookState;
  /** One entry per touched section (first) and bullet, in order of first touch, before → after. */
  changes: VersionChange[];
  /** Per add operation, in delta order, the id it got. */
  addedIds: string[];
  /** Warnings the delta passed with (near-duplicates, token budget, no-ops). */
  warnings: Finding[];
}

/** When a bullet becomes prunable; never applied silently, it only proposes remove operations. */
export interface PruningPolicy {
  enabled: boolean;
  /** Prune when harmful / (helpful + harmful) is above this … */
  harmfulShare: number;
  /** … once helpful + harmful reaches this (LangChain ACE middleware: 0.5 after 3). */
  harmfulMinVotes: number;
  /** Prune when helpful / (helpful + harmful + neutral) is below this … */
  minSuccessRatio: number;
  /** … once that total reaches this (ACE plugin: 30 % after 10). */
  successMinObservations: number;
  /** Keep at most this many active bullets; the lowest scores go first. */
  maxBullets: number | null;
}

export const DEFAULT_PRUNING_POLICY: PruningPolicy = {
  enabled: true,
  harmfulShare: 0.5,
  harmfulMinVotes: 3,
  minSuccessRatio: 0.3,
  successMinObservations: 10,
  maxBullets: null,
};
