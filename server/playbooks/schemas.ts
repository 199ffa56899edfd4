// The playbook domain's wire contract: zod inputs and the shapes procedures return.
// The one file of server/playbooks that client code may import.
import { z } from "zod";
import { PLAYBOOK_FORMATS } from "../ace/document";
import { AGENT_FORMATS } from "../ace/formats/agent-formats";
import { KAYBA_FLAVOURS } from "../ace/formats/kayba";
import { redactionSettingsPatchSchema, redactionSettingsSchema } from "../ace/redaction/settings";
import { retentionSettingsPatchSchema, retentionSettingsSchema } from "../ace/retention/settings";
import { BULLET_SIGNALS } from "../ace/signals";

export { PLAYBOOK_FORMATS, BULLET_SIGNALS };
export { KAYBA_FLAVOURS, KAYBA_FLAVOUR_INFO, type KaybaFlavour } from "../ace/formats/kayba";
export type { PlaybookFormat } from "../ace/document";
export { AGENT_FORMATS, AGENT_FORMAT_INFO } from "../ace/formats/agent-formats";
export type { BulletSignal } from "../ace/signals";
/** The import dialog reads a chosen file as the server reads an upload: UTF-8, or a refusal naming the byte. */
export { decodeUtf8, InvalidUtf8Error } from "../ace/text/utf8";
/** The settings form checks a custom redaction pattern with the code the server uses. */
export { patternProblem, patternNameProblem, MAX_CUSTOM_PATTERNS } from "../ace/redaction/patterns";
export type { RedactionSettings } from "../ace/redaction/settings";

export const formatSchema = z.enum(PLAYBOOK_FORMATS);
/** What export writes: every playbook format, and the export-only instructions for coding agents. */
export const EXPORT_FORMATS = [...PLAYBOOK_FORMATS, ...AGENT_FORMATS] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const exportFormatSchema = z.enum(EXPORT_FORMATS, { error: `format is one of ${EXPORT_FORMATS.join(", ")}.` });
export const signalSchema = z.enum(BULLET_SIGNALS);

const nameSchema = z
  .string()
  .trim()
  .min(1, "A playbook needs a name.")
  .max(120, "A playbook name has at most 120 characters.")
  .regex(/^[^/\\\n\r\t]+$/, "A playbook name cannot contain slashes, tabs or line breaks.");

export const RUN_MODES = ["auto", "manual", "off"] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** Curation thresholds kept per playbook; defaults are the ones the ACE design documents set. */
export const playbookSettingsSchema = z.object({
  similarityThreshold: z.number().min(0).max(1).default(0.85),
  autoApply: z.boolean().default(false),
  autoApplyConfidence: z.number().min(0).max(1).default(0.7),
  maxContentLength: z.number().int().min(20).max(20_000).default(1_000),
  tokenBudget: z.number().int().min(100).max(2_000_000).default(80_000),
  maxBullets: z.number().int().min(1).nullable().default(null),
  pruning: z
    .object({
      enabled: z.boolean().default(false),
      harmfulShare: z.number().min(0).max(1).default(0.5),
      harmfulMinVotes: z.number().int().min(1).default(3),
      minSuccessRatio: z.number().min(0).max(1).default(0.3),
      successMinObservations: z.number().int().min(1).default(10),
    })
    .prefault({}),
  curatorFrequency: z.number().int().min(1).max(10_000).default(10),
  /** auto: reflect every ingested trace in the background · manual: only when asked · off: never. */
  reflectorMode: z.enum(RUN_MODES).default("auto"),
  /** auto: curate after every curatorFrequency reflections · manual: only when asked · off: never. */
  curatorMode: z.enum(RUN_MODES).default("auto"),
  /** Reflection refinement rounds (the design documents allow up to 5). */
  reflectorRounds: z.number().int().min(1).max(5).default(1),
  /** Counter tags are applied at once (they are observations); true sends them to review instead. */
  tagsNeedReview: z.boolean().default(false),
  /** Queued runs of this playbook wait until resumed (server/jobs reads this key). */
  runsPaused: z.boolean().default(false),
  /** Monthly LLM budget for this playbook's runs; null: no limit. A warning at 75 %, new runs stop at 100 %. */
  monthlyTokenBudget: z.number().int().min(1_000).max(10_000_000_000).nullable().default(null),
  monthlyCostBudgetUsd: z.number().min(0.01).max(1_000_000).nullable().default(null),
  /** What is redacted from traces as they arrive, before anything is stored or sent to a model. */
  redaction: redactionSettingsSchema.prefault({}),
  /** Days traces, rejected deltas and failed runs are kept (server/retention). */
  retention: retentionSettingsSchema.prefault({}),
});
export type PlaybookSettings = z.infer<typeof playbookSettingsSchema>;

// A change to some settings: the same rules without the defaults (a partial of the schema above
// would fill every missing field with its default and overwrite the stored values).
const settingsShape = playbookSettingsSchema.shape;
const pruningShape = settingsShape.pruning.unwrap().shape;
export const playbookSettingsPatchSchema = z.strictObject({
  similarityThreshold: settingsShape.similarityThreshold.unwrap().optional(),
  autoApply: settingsShape.autoApply.unwrap().optional(),
  autoApplyConfidence: settingsShape.autoApplyConfidence.unwrap().optional(),
  maxContentLength: settingsShape.maxContentLength.unwrap().optional(),
  tokenBudget: settingsShape.tokenBudget.unwrap().optional(),
  maxBullets: settingsShape.maxBullets.unwrap().optional(),
  pruning: z
    .strictObject({
      enabled: pruningShape.enabled.unwrap().optional(),
      harmfulShare: pruningShape.harmfulShare.unwrap().optional(),
      harmfulMinVotes: pruningShape.harmfulMinVotes.unwrap().optional(),
      minSuccessRatio: pruningShape.minSuccessRatio.unwrap().optional(),
      successMinObservations: pruningShape.successMinObservations.unwrap().optional(),
    })
    .optional(),
  curatorFrequency: settingsShape.curatorFrequency.unwrap().optional(),
  reflectorMode: settingsShape.reflectorMode.unwrap().optional(),
  curatorMode: settingsShape.curatorMode.unwrap().optional(),
  reflectorRounds: settingsShape.reflectorRounds.unwrap().optional(),
  tagsNeedReview: settingsShape.tagsNeedReview.unwrap().optional(),
  runsPaused: settingsShape.runsPaused.unwrap().optional(),
  monthlyTokenBudget: settingsShape.monthlyTokenBudget.unwrap().optional(),
  monthlyCostBudgetUsd: settingsShape.monthlyCostBudgetUsd.unwrap().optional(),
  redaction: redactionSettingsPatchSchema.optional(),
  /** null: follow the studio default again. */
  retention: retentionSettingsPatchSchema.nullable().optional(),
});
export type PlaybookSettingsPatch = z.infer<typeof playbookSettingsPatchSchema>;

export const updateSettingsInput = z.object({
  playbookId: z.uuid(),
  settings: playbookSettingsPatchSchema,
});

export const updateSettingsResultSchema = z.object({
  settings: playbookSettingsSchema,
  /** The version that recorded the change; unchanged when nothing changed. */
  version: z.number().int(),
  changed: z.array(z.string()),
});
export type UpdateSettingsResult = z.infer<typeof updateSettingsResultSchema>;

export const playbookIdSchema = z.object({ playbookId: z.uuid() });

export const createPlaybookInput = z.object({
  name: nameSchema,
  description: z.string().max(2_000).default(""),
  agentLabel: z.string().max(120).default(""),
});

export const BULLET_SORTS = ["position", "id", "helpful", "harmful", "score", "recent"] as const;
export const bulletSortSchema = z.enum(BULLET_SORTS);

export const listBulletsInput = z.object({
  playbookId: z.uuid(),
  /** Matches content or id, case-insensitive. */
  search: z.string().trim().max(500).optional(),
  sectionIds: z.array(z.uuid()).max(200).optional(),
  signals: z.array(signalSchema).max(BULLET_SIGNALS.length).optional(),
  status: z.enum(["active", "archived", "all"]).default("active"),
  sort: bulletSortSchema.default("position"),
  /** Not "direction": tRPC's infinite queries reserve that input field for their own paging direction. */
  order: z.enum(["asc", "desc"]).optional(),
  /** Offset into the filtered list. */
  cursor: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(500).default(200),
});
export type ListBulletsInput = z.input<typeof listBulletsInput>;

export const bulletRefInput = z.object({
  playbookId: z.uuid(),
  externalId: z.string().min(1).max(200),
});

/** merge and replace apply the file at once; propose sends its changes to review as one delta. */
export const IMPORT_MODES = ["merge", "replace", "propose"] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];

const baseVersionSchema = z
  .number({ error: "baseVersion is a version number, e.g. 7." })
  .int("baseVersion is a whole version number, e.g. 7.")
  .describe(
    "The playbook version the external loop started from (x-playbook-version of the context it fetched). " +
      "Default: the current version.",
  );
const rationaleSchema = z.string().trim().max(10_000, "The rationale has at most 10,000 characters.");

export const importTargetSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("new"),
    name: nameSchema,
    description: z.string().max(2_000).optional(),
    agentLabel: z.string().max(120).optional(),
  }),
  z
    .object({
      kind: z.literal("existing"),
      playbookId: z.uuid(),
      /**
       * replace: the file becomes the playbook (a new version); merge: new ids are added, known ids
       * updated; propose: the file's changes since baseVersion become one pending delta for review.
       */
      mode: z.enum(IMPORT_MODES).default("merge"),
      /** propose: the version the external loop started from; default the current one. */
      baseVersion: baseVersionSchema.optional(),
      /** propose: why, for the reviewer; default a summary of the changes. */
      rationale: rationaleSchema.optional(),
    })
    .refine((target) => target.mode === "propose" || (target.baseVersion === undefined && target.rationale === undefined), {
      message: "baseVersion and rationale go with mode propose only.",
      path: ["mode"],
    }),
]);

/** 25 MB of text is far above any published playbook and well below what a request should carry. */
export const MAX_IMPORT_CHARS = 25_000_000;

export const importPlaybookInput = z.object({
  content: z.string().min(1, "The file is empty.").max(MAX_IMPORT_CHARS, "The file is larger than 25 MB."),
  format: z.union([formatSchema, z.literal("auto")]).default("auto"),
  /** File name, used to name a new playbook and in error messages. */
  fileName: z.string().max(300).optional(),
  target: importTargetSchema,
});
export type ImportPlaybookInput = z.input<typeof importPlaybookInput>;

export const exportPlaybookInput = z
  .object({
    playbookId: z.uuid(),
    format: exportFormatSchema.optional(),
    includeArchived: z.boolean().default(false),
    /** kayba only: which kayba version's flavour to write (default: the playbook's own, else skills-counters). */
    kaybaFlavour: z.enum(KAYBA_FLAVOURS).optional(),
    /** claude-md, agents-md and cursor-rules only: most tokens of the file (default: the playbook's token budget). */
    budget: z
      .number({ error: "budget is a whole number of tokens, e.g. 8000." })
      .int("budget is a whole number of tokens, e.g. 8000.")
      .min(1, "budget is at least 1 token.")
      .max(2_000_000, "budget is at most 2,000,000 tokens.")
      .optional(),
  })
  .refine(
    (input) => input.budget === undefined || (input.format !== undefined && (AGENT_FORMATS as readonly string[]).includes(input.format)),
    {
      message: `budget applies to the formats ${AGENT_FORMATS.join(", ")} only.`,
      path: ["budget"],
    },
  );

// ---- Output shapes (what procedures return) ----

export interface PlaybookListItem {
  id: string;
  name: string;
  description: string;
  agentLabel: string;
  sourceFormat: import("../ace/document").PlaybookFormat;
  version: number;
  bulletCount: number;
  sectionCount: number;
  updatedAt: Date;
}

export interface SectionSummary {
  id: string;
  name: string;
  slug: string;
  position: number;
  /** Active bullets in the section. */
  bulletCount: number;
}

export interface PlaybookSummary {
  active: number;
  archived: number;
  signals: Record<import("../ace/signals").BulletSignal, number>;
  /** Tokens of the compiled ACE text, counted with the o200k tokenizer. */
  estimatedTokens: number;
}

export interface PlaybookDetail {
  id: string;
  name: string;
  description: string;
  agentLabel: string;
  sourceFormat: import("../ace/document").PlaybookFormat;
  version: number;
  settings: PlaybookSettings;
  /** false: settings.retention is the studio default, which the playbook follows. */
  ownRetention: boolean;
  createdAt: Date;
  updatedAt: Date;
  sections: SectionSummary[];
  summary: PlaybookSummary;
}

export interface BulletRow {
  id: string;
  externalId: string;
  sectionId: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
  countersKnown: boolean;
  status: "active" | "archived";
  /** Ranked first in the compiled context. */
  pinned: boolean;
  signal: import("../ace/signals").BulletSignal;
  updatedAt: Date;
}

export interface BulletPage {
  items: BulletRow[];
  total: number;
  nextCursor: number | null;
}

export interface BulletDetail extends BulletRow {
  sectionName: string;
  origin: "import" | "manual" | "curator";
  sourceTraceId: string | null;
  sourceRunId: string | null;
  justification: string | null;
  evidence: string | null;
  archivedReason: string | null;
  mergedInto: string | null;
  createdAt: Date;
}

/** What a propose import did: the pending delta with the file's changes, or none when it changed nothing. */
export const importProposalSchema = z.object({
  /** The pending delta; null when the file has no change the playbook lacks. */
  deltaId: z.string().nullable(),
  /** Operations in the delta. */
  operations: z.number().int(),
  baseVersion: z.number().int(),
  counts: z.object({
    sectionsAdded: z.number().int(),
    sectionsRenamed: z.number().int(),
    added: z.number().int(),
    updated: z.number().int(),
    removed: z.number().int(),
    restored: z.number().int(),
    tagged: z.number().int(),
  }),
  /** Changes of the file the playbook already had (made in ACE Studio as well), not proposed again. */
  alreadyApplied: z.number().int(),
  /** Bullets and sections changed both in ACE Studio after baseVersion and in the file. */
  conflicts: z.array(z.object({ target: z.string(), label: z.string(), message: z.string() })),
  /** The delta is stale at once: a bullet or section it changes changed after baseVersion; re-base it to approve. */
  stale: z.boolean(),
  message: z.string(),
});
export type ImportProposal = z.infer<typeof importProposalSchema>;

export const importResultSchema = z.object({
  playbookId: z.string(),
  name: z.string(),
  format: formatSchema,
  sectionCount: z.number().int(),
  /** Active bullets after the import. */
  bulletCount: z.number().int(),
  version: z.number().int(),
  /** mode propose: the delta proposed instead of a new version. */
  proposal: importProposalSchema.optional(),
  /** What the file held that was read the way its peers read it (a raw continuation line, tabbed counters…). */
  warnings: z.array(z.string()),
});
export type ImportResult = z.infer<typeof importResultSchema>;

// ---- Proposals over HTTP: POST /api/v1/playbooks/{name}/proposals ----

/** A request carries one file (at most 25 MB of text) with some JSON around it. */
export const MAX_PROPOSAL_BODY_BYTES = 30 * 1_048_576;

export const proposalRequestSchema = z.strictObject({
  content: z
    .string({ error: "content is the playbook file's text, as a JSON string." })
    .min(1, "content is empty: send the playbook file's text.")
    .max(MAX_IMPORT_CHARS, "content is larger than 25 MB."),
  format: z
    .union([formatSchema, z.literal("auto")], { error: `format is one of auto, ${PLAYBOOK_FORMATS.join(", ")}.` })
    .default("auto")
    .describe("The file's format; auto detects it."),
  baseVersion: baseVersionSchema.optional(),
  rationale: rationaleSchema.optional().describe("Why, for the reviewer; default a summary of the changes."),
  fileName: z.string().max(300).optional().describe("How the reviewer sees the file named, e.g. skillbook.json."),
});
export type ProposalRequest = z.input<typeof proposalRequestSchema>;

export const proposalResponseSchema = importProposalSchema.extend({ playbook: z.string().describe("The playbook's name.") });
export type ProposalResponse = z.infer<typeof proposalResponseSchema>;

export const createPlaybookResultSchema = z.object({ id: z.string(), name: z.string() });

export interface ExportResult {
  fileName: string;
  format: ExportFormat;
  mimeType: string;
  content: string;
  /** What the format left out (pins outside ACE Studio JSON), for the person exporting. */
  notes?: string[];
}
