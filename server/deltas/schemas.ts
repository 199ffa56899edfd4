// The curation queue's wire contract: zod inputs and the shapes procedures return.
// The one file of server/deltas that client code may import.
import { z } from "zod";
import { asSentence } from "../ace/delta/messages";
import { DELTA_OPERATION_TYPES, FINDING_KINDS } from "../ace/delta/types";
import type { DeltaOperation, DeltaOperationType, Finding, FindingKind, MergeOperation } from "../ace/delta/types";
import type { TextSegment } from "../ace/diff";
import type { RunRole, RunStatus } from "../runs/schemas";
import type { TraceOutcome } from "../traces/schemas";

export { asSentence, DELTA_OPERATION_TYPES, FINDING_KINDS };
export type { DeltaOperation, DeltaOperationType, Finding, FindingKind, MergeOperation };

export const DELTA_STATUSES = ["pending", "applied", "auto_applied", "rejected"] as const;
export type DeltaStatus = (typeof DELTA_STATUSES)[number];

/**
 * Where a delta came from. "rollback" deltas are written by history.rollback, never proposed.
 * "agent": a coding agent's lesson through MCP (propose_lesson), which always waits for review.
 */
export const DELTA_ORIGINS = ["person", "reflector", "curator", "pruning", "import", "rollback", "agent"] as const;
export type DeltaOrigin = (typeof DELTA_ORIGINS)[number];
export const PROPOSABLE_ORIGINS = ["person", "reflector", "curator", "pruning", "import", "agent"] as const;
export type ProposableOrigin = (typeof PROPOSABLE_ORIGINS)[number];

export const OPERATION_STATUSES = ["pending", "approved", "rejected"] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

// ---- Operations ---------------------------------------------------------------------------
// The same shapes as server/ace/delta/types.ts; the engine validates meaning (unknown ids, limits),
// zod only the structure.

/** Longest section name, bullet id and reason a person can send; the form fields say the same. */
export const SECTION_NAME_MAX = 200;
export const BULLET_ID_MAX = 200;
export const REASON_MAX = 2_000;
/**
 * Content longer than this is refused before any check. It is no bullet limit: each playbook has its
 * own (maxContentLength, 1,000 characters by default), which the engine reports in its words.
 */
export const CONTENT_TRANSPORT_MAX = 200_000;

const bulletId = z
  .string()
  .trim()
  .min(1, "Name the bullet by its id, e.g. str-00001.")
  .max(BULLET_ID_MAX, `A bullet id has at most ${BULLET_ID_MAX} characters.`);
const sectionRef = z
  .string()
  .trim()
  .min(1, "Name the section.")
  .max(SECTION_NAME_MAX, `A section name has at most ${SECTION_NAME_MAX} characters.`);
const content = z
  .string()
  .max(
    CONTENT_TRANSPORT_MAX,
    "The content is far longer than any playbook allows (its limit is in the playbook's settings, 1,000 characters by default). Shorten it.",
  );
const reason = z
  .string()
  .trim()
  .max(REASON_MAX, `A reason has at most ${REASON_MAX.toLocaleString("en-US")} characters.`);
const increment = z.number().int().min(-1_000_000).max(1_000_000);
/** A counter a new bullet starts with (an external loop's count); the message names the field. */
const startCount = (name: "helpful" | "harmful" | "neutral") => {
  const error = `${name} (the count a new bullet starts with) must be a whole number from 0 to 1,000,000.`;
  return z.number({ error }).int({ error }).min(0, { error }).max(1_000_000, { error }).optional();
};

export const addOperationSchema = z.object({
  type: z.literal("add"),
  section: sectionRef,
  content,
  helpful: startCount("helpful"),
  harmful: startCount("harmful"),
  neutral: startCount("neutral"),
});
export const updateOperationSchema = z.object({
  type: z.literal("update"),
  bulletId,
  content: content.optional(),
  section: sectionRef.optional(),
  position: z.number().int().min(0).optional(),
});
export const removeOperationSchema = z.object({
  type: z.literal("remove"),
  bulletId,
  reason: reason.min(1, "Say why the bullet is removed."),
});
export const restoreOperationSchema = z.object({ type: z.literal("restore"), bulletId });
export const mergeOperationSchema = z.object({
  type: z.literal("merge"),
  bulletIds: z.array(bulletId).min(1).max(100),
  into: bulletId,
  content,
  reason: reason.optional(),
});
export const tagOperationSchema = z.object({
  type: z.literal("tag"),
  bulletId,
  helpful: increment.optional(),
  harmful: increment.optional(),
  neutral: increment.optional(),
});
export const pinOperationSchema = z.object({ type: z.literal("pin"), bulletId });
export const unpinOperationSchema = z.object({ type: z.literal("unpin"), bulletId });
export const addSectionOperationSchema = z.object({
  type: z.literal("add_section"),
  name: sectionRef,
  slug: z.string().trim().min(1, "A section slug cannot be empty.").max(40, "A section slug has at most 40 characters.").optional(),
});
export const renameSectionOperationSchema = z.object({ type: z.literal("rename_section"), section: sectionRef, name: sectionRef });
export const moveSectionOperationSchema = z.object({
  type: z.literal("move_section"),
  section: sectionRef,
  position: z.number().int().min(0),
});

export const removeSectionOperationSchema = z.object({ type: z.literal("remove_section"), section: sectionRef });

export const operationSchema = z.discriminatedUnion("type", [
  addOperationSchema,
  updateOperationSchema,
  removeOperationSchema,
  restoreOperationSchema,
  mergeOperationSchema,
  tagOperationSchema,
  pinOperationSchema,
  unpinOperationSchema,
  addSectionOperationSchema,
  renameSectionOperationSchema,
  moveSectionOperationSchema,
  removeSectionOperationSchema,
]);
export type OperationInput = z.infer<typeof operationSchema>;

// Keeps the wire shapes and the engine's types in step: a drift fails the type check here.
type Assignable<A, B> = [A] extends [B] ? true : false;
const operationsMatchEngine: Assignable<OperationInput, DeltaOperation> = true;
void operationsMatchEngine;

/** A proposed operation may say why, on its own. */
export const proposedOperationSchema = z.object({
  operation: operationSchema,
  rationale: z
    .string()
    .trim()
    .max(REASON_MAX, `A rationale has at most ${REASON_MAX.toLocaleString("en-US")} characters.`)
    .default(""),
});

export const MAX_OPERATIONS = 500;

/**
 * A link to what a lesson rests on: a web page only. A javascript: or data: URL is script, not
 * evidence (React refuses to render it as a link, but it must not be stored either).
 */
export const evidenceLinkSchema = z.object({
  label: z.string().trim().min(1).max(200),
  url: z.url({ protocol: /^https?$/, error: "An evidence link is an http:// or https:// URL." }).max(2_000),
});

export const evidenceSchema = z.object({
  /** Traces the lessons came from (Trace ids). */
  traceIds: z.array(z.string().min(1).max(200)).max(200).default([]),
  /** Curation runs or experiment runs. */
  runIds: z.array(z.string().min(1).max(200)).max(200).default([]),
  links: z.array(evidenceLinkSchema).max(50).default([]),
  /** Free text the proposer adds: the Reflector's key insight, an excerpt. */
  notes: z.string().max(10_000).default(""),
});
export type DeltaEvidence = z.output<typeof evidenceSchema>;

// ---- Inputs -------------------------------------------------------------------------------

export const proposeDeltaInput = z.object({
  playbookId: z.uuid(),
  operations: z.array(proposedOperationSchema).min(1, "A delta needs at least one operation.").max(MAX_OPERATIONS),
  rationale: z.string().trim().max(10_000).default(""),
  /** The proposer's confidence in [0, 1]; auto-apply compares it with the playbook's threshold. */
  confidence: z.number().min(0).max(1).nullable().default(null),
  // No origin: the server sets it from who proposes (server/deltas/propose.ts originOf), never the request.
  evidence: evidenceSchema.prefault({}),
  /** The version the proposer read; default the current one. Older: the delta may be stale at once. */
  baseVersion: z.number().int().min(0).optional(),
});
export type ProposeDeltaInput = z.input<typeof proposeDeltaInput>;

/** A person's edit in the browser: applied at once as a delta by that person. */
export const editDeltaInput = z.object({
  playbookId: z.uuid(),
  operations: z.array(operationSchema).min(1).max(MAX_OPERATIONS),
  reason: z
    .string()
    .trim()
    .min(1, "Say why (it is recorded in the history).")
    .max(REASON_MAX, `A reason has at most ${REASON_MAX.toLocaleString("en-US")} characters.`),
  /**
   * The version the editor saw. When set and a bullet or section the edit touches changed since,
   * the edit is refused with CONFLICT instead of overwriting the newer change.
   */
  expectedVersion: z.number().int().min(0).optional(),
});
export type EditDeltaInput = z.input<typeof editDeltaInput>;

export const DELTA_LIST_STATUSES = ["pending", "stale", "applied", "auto_applied", "rejected", "decided", "all"] as const;

export const listDeltasInput = z.object({
  /** Omit for the queue across playbooks. */
  playbookId: z.uuid().optional(),
  /** pending includes stale ones (flagged); stale: only those; applied includes auto-applied; decided: applied or rejected. */
  status: z.enum(DELTA_LIST_STATUSES).default("pending"),
  origin: z.enum(DELTA_ORIGINS).optional(),
  cursor: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(100).default(25),
});
export type ListDeltasInput = z.input<typeof listDeltasInput>;

export const deltaIdInput = z.object({ deltaId: z.uuid() });

/** The queue to watch for changes: one playbook's, or (omitted) every playbook's. */
export const watchQueueInput = z.object({ playbookId: z.uuid().optional() });

export const operationEditSchema = z.object({ operationId: z.uuid(), operation: operationSchema });

export const approveDeltaInput = z.object({
  deltaId: z.uuid(),
  /** Approve only these operations; the others are rejected. Omit to approve every pending one. */
  operationIds: z.array(z.uuid()).min(1).max(MAX_OPERATIONS).optional(),
  /** Edit-then-approve: replacement payloads (same operation type) applied instead of the proposed ones. */
  edits: z.array(operationEditSchema).max(MAX_OPERATIONS).default([]),
  note: z
    .string()
    .trim()
    .max(REASON_MAX, `A note has at most ${REASON_MAX.toLocaleString("en-US")} characters.`)
    .optional(),
});
export type ApproveDeltaInput = z.input<typeof approveDeltaInput>;

export const rejectDeltaInput = z.object({
  deltaId: z.uuid(),
  reason: z
    .string()
    .trim()
    .min(1, "Say why the delta is rejected.")
    .max(REASON_MAX, `A reason has at most ${REASON_MAX.toLocaleString("en-US")} characters.`),
  /** Reject only these operations; the delta stays pending with the rest. Omit to reject the delta. */
  operationIds: z.array(z.uuid()).min(1).max(MAX_OPERATIONS).optional(),
});
export type RejectDeltaInput = z.input<typeof rejectDeltaInput>;

export const updateOperationInput = z.object({
  deltaId: z.uuid(),
  operationId: z.uuid(),
  /** The edited operation; its type must stay the same. */
  operation: operationSchema,
  rationale: z
    .string()
    .trim()
    .max(REASON_MAX, `A rationale has at most ${REASON_MAX.toLocaleString("en-US")} characters.`)
    .optional(),
});
export type UpdateOperationInput = z.input<typeof updateOperationInput>;

export const bulkDeltaInput = z
  .object({
    action: z.enum(["approve", "reject"]),
    deltaIds: z.array(z.uuid()).min(1).max(100),
    /** Required to reject; recorded as the review note when approving. */
    reason: z
      .string()
      .trim()
      .max(REASON_MAX, `A reason has at most ${REASON_MAX.toLocaleString("en-US")} characters.`)
      .optional(),
  })
  .refine((input) => input.action !== "reject" || (input.reason ?? "").length > 0, {
    message: "Say why the deltas are rejected.",
    path: ["reason"],
  });
export type BulkDeltaInput = z.input<typeof bulkDeltaInput>;

export const playbookRefInput = z.object({ playbookId: z.uuid() });

// ---- Output shapes --------------------------------------------------------------------------

/** What mutations return (declared with zod): the delta's new state in a few fields. */
export const findingSchema = z.object({
  operationIndex: z.number().int(),
  severity: z.enum(["error", "warning"]),
  kind: z.enum(FINDING_KINDS),
  message: z.string(),
  relatedOperationIndex: z.number().int().optional(),
  matchedBulletId: z.string().optional(),
  similarity: z.number().optional(),
  /** prompt_injection: what was found (its kind), the phrase, and the decoding steps that revealed it. */
  injection: z.object({ kind: z.string(), phrase: z.string(), revealedBy: z.array(z.string()) }).optional(),
  suggestion: z
    .object({
      type: z.literal("merge"),
      bulletIds: z.array(z.string()).readonly(),
      into: z.string(),
      content: z.string(),
      reason: z.string().optional(),
    })
    .optional(),
});

export const deltaOutcomeSchema = z.object({
  /** Empty only when a direct edit changed nothing (no delta and no version were written). */
  deltaId: z.string(),
  playbookId: z.string(),
  status: z.enum(DELTA_STATUSES),
  /** The playbook's version after the call. */
  playbookVersion: z.number().int(),
  /** The version this delta created, when it was applied. */
  appliedVersion: z.number().int().nullable(),
  /** Ids given to the bullets the delta added, in operation order. */
  addedIds: z.array(z.string()),
  /** Current findings of the operations still pending (or applied just now: its warnings). */
  findings: z.array(findingSchema),
  stale: z.boolean(),
  /** Applied because the playbook auto-applies at this confidence. */
  autoApplied: z.boolean(),
  /** One sentence for a toast. */
  message: z.string(),
});
export type DeltaOutcome = z.infer<typeof deltaOutcomeSchema>;

export const bulkResultSchema = z.object({
  results: z.array(
    z.object({
      deltaId: z.string(),
      ok: z.boolean(),
      status: z.enum(DELTA_STATUSES).nullable(),
      appliedVersion: z.number().int().nullable(),
      /** Why this one failed (the others are unaffected). */
      error: z.object({ code: z.string(), message: z.string() }).nullable(),
    }),
  ),
  succeeded: z.number().int(),
  failed: z.number().int(),
});
export type BulkResult = z.infer<typeof bulkResultSchema>;

/** What undoing a decision (an approval, a rejection, a rollback) did. */
export const undoResultSchema = z.object({
  deltaId: z.string(),
  playbookId: z.string(),
  /** The delta's status now: pending again for an approval or rejection; a rollback's stays applied. */
  status: z.enum(DELTA_STATUSES),
  /** The version the undo wrote (null when nothing in the playbook changed: a rejection). */
  version: z.number().int().nullable(),
  /** The version whose changes were reverted. */
  undoneVersion: z.number().int().nullable(),
  /** One sentence for a toast. */
  message: z.string(),
});
export type UndoResult = z.infer<typeof undoResultSchema>;

export const pruningResultSchema = z.object({
  delta: deltaOutcomeSchema.nullable(),
  /** Why no delta was proposed (pruning off, nothing to prune). */
  reason: z.string().nullable(),
  candidates: z.number().int(),
});
export type PruningResult = z.infer<typeof pruningResultSchema>;

export interface DeltaFlags {
  /** Bullets or sections it targets changed since its base version: re-base or reject. */
  stale: boolean;
  hasDuplicates: boolean;
  hasErrors: boolean;
  hasWarnings: boolean;
}

export interface OperationCounts {
  total: number;
  pending: number;
  approved: number;
  rejected: number;
}

export interface DeltaListItem {
  id: string;
  playbookId: string;
  playbookName: string;
  status: DeltaStatus;
  origin: DeltaOrigin;
  author: string;
  rationale: string;
  confidence: number | null;
  baseVersion: number;
  appliedVersion: number | null;
  /** The playbook's version now. */
  currentVersion: number;
  reviewNote: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  counts: OperationCounts;
  /** Operation types in the delta with how many of each. */
  types: Partial<Record<DeltaOperationType, number>>;
  flags: DeltaFlags;
}

export interface DeltaPage {
  items: DeltaListItem[];
  total: number;
  nextCursor: number | null;
}

/** A bullet as it is now, for the side-by-side view of an operation. */
export interface BulletSnapshot {
  externalId: string;
  sectionId: string;
  sectionName: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
  countersKnown: boolean;
  status: "active" | "archived";
  /** The version that last changed it. */
  changedInVersion: number;
}

/** Word-level diff segments (server/ace/diff.ts): joining them gives the texts back. */
export type DiffSegment = TextSegment;

export interface Counters {
  helpful: number;
  harmful: number;
  neutral: number;
}

/** What the operation would do to the current playbook, ready to draw. */
export interface OperationPreview {
  /** "Add to strategies_and_insights", "Edit [str-00003]", … */
  summary: string;
  /** Content before → after with word-level highlights; absent when the content does not change. */
  content: { before: string | null; after: string | null; segments: DiffSegment[] } | null;
  counters: { before: Counters; after: Counters } | null;
  /** Section names: a move, a rename or a new section. */
  section: { from: string | null; to: string | null } | null;
  /** Bullets archived (remove, merge sources) or restored. */
  archives: string[];
  restores: string[];
}

export type OperationConflict =
  | { kind: "changed_since_proposal"; target: string; version: number; message: string }
  | { kind: "pending_elsewhere"; target: string; deltaId: string; message: string };

export interface OperationView {
  id: string;
  position: number;
  type: DeltaOperationType;
  status: OperationStatus;
  payload: DeltaOperation;
  rationale: string;
  /** The payload as proposed, when a reviewer edited it. */
  originalPayload: DeltaOperation | null;
  editedBy: string | null;
  /** Engine findings against the current version (errors, near-duplicates with a suggested merge, limits). */
  findings: Finding[];
  /** Current state of the bullets it targets. */
  targets: BulletSnapshot[];
  preview: OperationPreview;
  conflicts: OperationConflict[];
}

/** A stored trace a delta cites as evidence: enough to tell it apart and link it. */
export interface EvidenceTrace {
  id: string;
  /** The task, up to EVIDENCE_TASK_LENGTH characters. */
  task: string;
  outcome: TraceOutcome;
  timestamp: Date;
}

export interface EvidenceRun {
  id: string;
  role: RunRole;
  status: RunStatus;
  createdAt: Date;
}

export const EVIDENCE_TASK_LENGTH = 160;

export interface DeltaView extends DeltaListItem {
  evidence: DeltaEvidence;
  /** The evidence ids that are stored traces and runs, in the evidence's order; other ids are the agent's own. */
  evidenceTraces: EvidenceTrace[];
  evidenceRuns: EvidenceRun[];
  operations: OperationView[];
  /** Why the delta is stale, one sentence per changed target. */
  staleReasons: string[];
}
