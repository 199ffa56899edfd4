// The trace domain's wire contract: what an agent sends after a task, and what the studio returns.
// The same schemas validate tRPC input, the HTTP API (POST /api/v1/traces) and generate its OpenAPI
// document, so the three cannot drift. The one file of server/traces that client code may import.
import { z } from "zod";
import { redactionSettingsSchema } from "../ace/redaction/settings";
import { instantParameter, queryParameterValues } from "../http/query";

export const TRACE_OUTCOMES = ["success", "failure", "unknown"] as const;
export type TraceOutcome = (typeof TRACE_OUTCOMES)[number];
export const traceOutcomeSchema = z.enum(TRACE_OUTCOMES);

/** Task, reasoning, output and ground truth: long enough for a full transcript, short of abuse. */
export const MAX_TRACE_TEXT = 100_000;
export const MAX_TRACES_PER_BATCH = 1_000;
/** Body size limit of POST /api/v1/traces: a full batch of typical traces, far from a server's memory. */
export const MAX_TRACE_BODY_BYTES = 10 * 1024 * 1024;
/** Serialized JSON size of a trace's metadata, and of its feedback. */
export const MAX_METADATA_CHARS = 64_000;
export const MAX_FEEDBACK_CHARS = 256_000;
export const MAX_CITED_BULLETS = 1_000;
/** PostgreSQL's int4, the type of durations and token counts. */
const MAX_INT = 2_147_483_647;
/** A trace's timestamp may not be earlier than this (a zero or unset clock on the agent's side) … */
export const EARLIEST_TRACE_TIMESTAMP = "2000-01-01T00:00:00.000Z";
/** … nor later than the server's clock plus this much skew. */
export const MAX_TRACE_CLOCK_SKEW_MS = 5 * 60_000;

const jsonChars = (value: unknown) => JSON.stringify(value)?.length ?? 0;

const count = (what: string) =>
  z
    .number()
    .int(`${what} must be a whole number.`)
    .min(0, `${what} cannot be negative.`)
    .max(MAX_INT, `${what} is larger than ${MAX_INT}.`);

const text = (what: string, max = MAX_TRACE_TEXT) => z.string().max(max, `${what} has at most ${max.toLocaleString("en")} characters.`);

export const traceFeedbackSchema = z
  .looseObject({
    /** The expected answer, when the task has one. */
    groundTruth: text("feedback.groundTruth").nullish(),
    errors: z.array(text("An error", 10_000)).max(100, "At most 100 errors.").nullish(),
    testResults: text("feedback.testResults").nullish(),
    notes: text("feedback.notes", 20_000).nullish(),
  })
  .refine((feedback) => jsonChars(feedback) <= MAX_FEEDBACK_CHARS, {
    message: `feedback is larger than ${MAX_FEEDBACK_CHARS.toLocaleString("en")} characters of JSON.`,
  })
  .describe("What the environment said about the result. Other keys are kept as sent.");

export const traceUsageSchema = z.strictObject({
  inputTokens: count("usage.inputTokens").nullish(),
  outputTokens: count("usage.outputTokens").nullish(),
  costUsd: z
    .number({ error: "usage.costUsd is a number of US dollars, e.g. 0.0042." })
    .min(0, "usage.costUsd cannot be negative.")
    .nullish()
    .describe("What the agent's own model calls cost, in US dollars."),
});

/**
 * When the agent ran: ISO 8601 with a zone offset (Z or ±hh:mm), so a time is never read in the
 * server's zone by mistake. Past runs may be back-filled; a time in the future (beyond clock skew) or
 * before 2000 is a clock error on the agent's side, refused rather than charted in the wrong place.
 */
export const traceTimestampSchema = z.iso
  .datetime({
    offset: true,
    error: "timestamp is an ISO 8601 time with a zone offset, e.g. 2026-11-01T09:30:00Z or 2026-11-01T10:30:00+01:00.",
  })
  .refine((value) => !(Date.parse(value) < Date.parse(EARLIEST_TRACE_TIMESTAMP)), {
    message: "timestamp is before 2000-01-01: check the agent's clock, or leave timestamp out to use the time of receipt.",
  })
  .refine((value) => !(Date.parse(value) > Date.now() + MAX_TRACE_CLOCK_SKEW_MS), {
    message:
      "timestamp is more than 5 minutes in the future: check the agent's clock and its zone offset, or leave timestamp out to use the time of receipt.",
  })
  .describe(
    "When the agent ran, ISO 8601 with a zone offset. Default: the time the server received the trace. " +
      "At most 5 minutes ahead of the server's clock, and not before 2000-01-01. Metrics bucket traces by it.",
  );

export const bulletIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[^\s\]]+$/, "A bullet id has no whitespace and no ']', e.g. str-00001.");

/** One agent run. Only playbook and task are required; null counts as absent. */
export const traceInputSchema = z.strictObject({
  playbook: z.string().trim().min(1, "Name the playbook the agent used.").max(120).describe("The playbook's name."),
  externalId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .nullish()
    .describe("The agent's own id for this run. Sending a trace with the same id again stores it once."),
  task: text("task").min(1, "A trace needs its task."),
  reasoning: text("reasoning").nullish(),
  output: text("output").nullish(),
  citedBulletIds: z
    .array(bulletIdSchema)
    .max(MAX_CITED_BULLETS)
    .nullish()
    .describe(
      "Bullets the agent used. When absent, ids cited in reasoning and output ([str-00001] or <!-- bullet_ids: [...] -->) are taken.",
    ),
  outcome: traceOutcomeSchema.nullish().describe("Default: unknown."),
  feedback: traceFeedbackSchema.nullish(),
  durationMs: count("durationMs").nullish(),
  timestamp: traceTimestampSchema.nullish(),
  model: z.string().trim().min(1).max(200).nullish().describe("The agent's model, e.g. gpt-4.1-mini."),
  usage: traceUsageSchema.nullish(),
  experiment: z.string().trim().min(1).max(100).nullish().describe("Key of the experiment the variant belongs to; metrics filter by it."),
  variant: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .nullish()
    .describe(
      "The experiment variant the agent ran, e.g. A. With a known experiment it must be one of its variants; left out with a unitId, the server assigns it.",
    ),
  unitId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .nullish()
    .describe("The experiment's unit of randomisation (agent, user, task): records its exposure, or has the server assign a variant."),
  taskId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .nullish()
    .describe("The task's id across runs: traces of one task under two variants are compared in pairs (McNemar)."),
  playbookVersion: count("playbookVersion").nullish().describe("The playbook version the agent's context was compiled from."),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((metadata) => jsonChars(metadata) <= MAX_METADATA_CHARS, {
      message: `metadata is larger than ${MAX_METADATA_CHARS.toLocaleString("en")} characters of JSON.`,
    })
    .nullish(),
});
export type TraceInput = z.output<typeof traceInputSchema>;

export const traceBatchSchema = z.strictObject({
  traces: z
    .array(traceInputSchema)
    .min(1, "Send at least one trace.")
    .max(MAX_TRACES_PER_BATCH, `Send at most ${MAX_TRACES_PER_BATCH.toLocaleString("en")} traces per request.`),
});

// An agent's own words, where a NUL character is stored as U+FFFD (traces/repository.ts). Names and
// ids (playbook, externalId, unitId, …) are looked up before anything is stored: a NUL there is refused.
const NUL_REPLACED_FIELDS = new Set(["task", "reasoning", "output", "feedback", "metadata"]);

/** Whether a NUL at this path of a trace body (one trace, or `{ traces: [...] }`) is replaced rather than refused. */
export function nulReplacedAt(path: readonly (string | number)[]): boolean {
  const field = path[0] === "traces" ? path[2] : path[0];
  return typeof field === "string" && NUL_REPLACED_FIELDS.has(field);
}

/**
 * The HTTP body is one trace or `{ traces: [...] }`; issues keep the path of the shape sent
 * (`outcome` for one trace, `traces.3.outcome` in a batch).
 */
export function parseTraceBody(body: unknown): TraceInput[] {
  const isBatch = typeof body === "object" && body !== null && !Array.isArray(body) && "traces" in body;
  return isBatch ? traceBatchSchema.parse(body).traces : [traceInputSchema.parse(body)];
}

export const TRACE_STATUSES = ["created", "duplicate"] as const;

export const ingestResultSchema = z.object({
  /** One entry per trace sent, in the order sent. */
  traces: z.array(
    z.object({
      id: z.string().describe("The stored trace's id; for a duplicate, the id stored the first time."),
      externalId: z.string().nullable(),
      playbook: z.string(),
      status: z.enum(TRACE_STATUSES),
    }),
  ),
  created: z.number().int(),
  duplicates: z.number().int(),
});
export type IngestResult = z.infer<typeof ingestResultSchema>;

// ---- Browsing ----------------------------------------------------------------------------

export const listTracesInput = z.object({
  playbookId: z.uuid().optional(),
  outcome: traceOutcomeSchema.optional(),
  /** Ran (timestamp) at or after: the same time the metrics bucket traces by. */
  from: z.date().optional(),
  /** Ran (timestamp) before. */
  to: z.date().optional(),
  /** true: a reflection was made from it; false: not yet. */
  reflected: z.boolean().optional(),
  experiment: z.string().trim().min(1).max(100).optional(),
  variant: z.string().trim().min(1).max(100).optional(),
  /** Matches the task or the external id, case-insensitive. */
  search: z.string().trim().min(1).max(500).optional(),
  /** nextCursor of the previous page. */
  cursor: z.string().max(200).nullish(),
  limit: z.number().int().min(1).max(200).default(50),
});
export type ListTracesInput = z.input<typeof listTracesInput>;

export const traceIdInput = z.object({ traceId: z.uuid() });

/** Characters of the task shown in a list row. */
export const TASK_PREVIEW_CHARS = 300;

export interface TraceListItem {
  id: string;
  playbookId: string;
  playbookName: string;
  externalId: string | null;
  /** The first TASK_PREVIEW_CHARS characters of the task. */
  taskPreview: string;
  outcome: TraceOutcome;
  citedBulletIds: string[];
  experiment: string | null;
  variant: string | null;
  playbookVersion: number | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  model: string | null;
  reflectedAt: Date | null;
  /** When the agent ran (the receipt time when the agent did not say). */
  timestamp: Date;
  /** When the studio received it. */
  createdAt: Date;
}

export interface TracePage {
  items: TraceListItem[];
  nextCursor: string | null;
  /**
   * Traces matching the filters, on the first page only (null on later ones); counted up to
   * TRACE_COUNT_CAP, so a larger number means "more than TRACE_COUNT_CAP".
   */
  total: number | null;
}

/** Counting stops here: a filter matching a million traces is not scanned to the end for a label. */
export const TRACE_COUNT_CAP = 10_000;

export interface CitedBullet {
  externalId: string;
  /** false: the playbook has no bullet with this id (a typo of the agent, or a deleted bullet). */
  exists: boolean;
  content: string | null;
  sectionName: string | null;
  helpful: number | null;
  harmful: number | null;
  neutral: number | null;
  countersKnown: boolean | null;
  status: "active" | "archived" | null;
}

export interface TraceRunSummary {
  id: string;
  role: "reflector" | "curator";
  status: "queued" | "running" | "succeeded" | "failed";
  provider: string;
  model: string;
  createdAt: Date;
  deltaId: string | null;
  /** Why it failed, or what a queued run waits for. */
  error: string | null;
}

/**
 * What redaction at ingestion replaced in a trace: findings per kind (email, card, secret … or a
 * custom pattern's name) and the fields they were in (task, metadata.user.email …). Never the originals.
 */
export interface TraceRedactions {
  counts: Record<string, number>;
  fields: string[];
  /** The unit id was an email or phone number and is stored as a keyed hash. */
  unitIdHashed?: boolean;
}

export interface TraceDetail extends Omit<TraceListItem, "taskPreview"> {
  task: string;
  reasoning: string;
  output: string;
  feedback: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** Null when nothing was redacted (or the trace arrived before redaction existed). */
  redactions: TraceRedactions | null;
  /** The unit id as stored: `hmac:…` for an email or phone number. */
  unitId: string | null;
  citedBullets: CitedBullet[];
  runs: TraceRunSummary[];
}

// ---- Redaction dry run -------------------------------------------------------------------------

/** A dry run reads the playbook's most recent traces, newest first. */
export const REDACTION_PREVIEW_TRACES = 200;
export const REDACTION_PREVIEW_EXAMPLES = 20;

export const redactionPreviewInput = z.object({
  playbookId: z.uuid(),
  /** The settings to try, before they are saved (custom patterns checked as updateSettings checks them). */
  redaction: redactionSettingsSchema,
});

export interface RedactionPreview {
  /** Traces read (at most REDACTION_PREVIEW_TRACES). */
  scanned: number;
  /** Traces in which something would be replaced. */
  tracesMatched: number;
  /** Findings per kind or custom pattern name. */
  counts: Record<string, number>;
  /** Up to REDACTION_PREVIEW_EXAMPLES: the text around the first replacement of a field, as it would be stored. */
  examples: { traceId: string; externalId: string | null; field: string; excerpt: string }[];
}

// ---- Deleting on request -----------------------------------------------------------------------
// A person asks for their data (a subject-access request) or for its deletion: every trace of a
// unit id, of an external id or of a time range of one playbook, exported as JSON Lines, then deleted.

const selector = (name: string) =>
  z
    .string({ error: `${name} is text.` })
    .trim()
    .min(1, `${name} is empty: leave it out, or name one.`)
    .max(500, `${name} has at most 500 characters.`);

const selectorFields = {
  /** As the agent sent it: an email or phone number is also matched under the keyed hash it is stored as. */
  unitId: selector("unitId").optional(),
  externalId: selector("externalId").optional(),
};

/** At least one selector, and a range that is one. */
function checkSelection(selection: { unitId?: string; externalId?: string; from?: Date; to?: Date }, ctx: z.RefinementCtx) {
  if (!selection.unitId && !selection.externalId && !selection.from && !selection.to) {
    ctx.addIssue({
      code: "custom",
      path: [],
      message: "Name the traces: a unitId, an externalId or a time range (from, to). A selection of every trace of a playbook is refused.",
    });
  }
  if (selection.from && selection.to && selection.to.getTime() <= selection.from.getTime()) {
    ctx.addIssue({
      code: "custom",
      path: ["to"],
      message: `to (${selection.to.toISOString()}) must be later than from (${selection.from.toISOString()}).`,
    });
  }
}

/** tRPC: the traces of one playbook with this unit id, external id and time range (each optional, at least one). */
export const traceSelectionSchema = z
  .object({ playbookId: z.uuid(), ...selectorFields, from: z.date().optional(), to: z.date().optional() })
  .superRefine(checkSelection);
export type TraceSelection = z.output<typeof traceSelectionSchema>;

/** GET and DELETE /api/v1/traces: the same selection, by playbook name, as query parameters. */
export const traceSelectionQuerySchema = z
  .object({
    playbook: selector("playbook").describe("The playbook's name."),
    unitId: selectorFields.unitId.describe(
      "The unit id as the agent sent it (an email or phone number is matched under its stored hash too).",
    ),
    externalId: selectorFields.externalId.describe("The trace's externalId."),
    from: instantParameter("from").optional().describe("Ran (timestamp) at or after."),
    to: instantParameter("to").optional().describe("Ran (timestamp) before."),
  })
  .superRefine(checkSelection);
export type TraceSelectionQuery = z.output<typeof traceSelectionQuerySchema>;

const SELECTION_PARAMETERS = ["playbook", "unitId", "externalId", "from", "to"] as const;

export function parseTraceSelectionQuery(params: URLSearchParams): TraceSelectionQuery {
  return traceSelectionQuerySchema.parse(queryParameterValues(params, SELECTION_PARAMETERS));
}

/** Traces per page of an export. */
export const TRACE_EXPORT_PAGE = 500;

export const traceExportInput = z.object({ selection: traceSelectionSchema, cursor: z.string().max(200).nullish() });

/** One line of an export: a trace as stored (redacted at ingestion), or an experiment exposure of the unit. */
export type TraceExportRecord =
  | {
      record: "trace";
      id: string;
      playbook: string;
      externalId: string | null;
      timestamp: string;
      receivedAt: string;
      task: string;
      reasoning: string;
      output: string;
      outcome: TraceOutcome;
      citedBulletIds: string[];
      feedback: unknown;
      metadata: unknown;
      durationMs: number | null;
      usage: { inputTokens: number | null; outputTokens: number | null; costUsd: number | null };
      model: string | null;
      playbookVersion: number | null;
      experiment: string | null;
      variant: string | null;
      unitId: string | null;
      taskId: string | null;
      redactions: unknown;
      reflectedAt: string | null;
    }
  | { record: "exposure"; experiment: string; phase: number; unitId: string; variant: string; firstSeenAt: string; traces: number };

export interface TraceExportPage {
  records: TraceExportRecord[];
  nextCursor: string | null;
}

/** What a deletion would remove, shown before it is confirmed. */
export interface TraceSelectionSummary {
  traces: number;
  /** The unit's experiment exposures (a unitId selection), and those of the selected traces sent without one. */
  exposures: number;
  /** Of the traces, those not reflected yet: their reflections will not run. */
  unreflected: number;
  oldest: Date | null;
  newest: Date | null;
}

export const traceDeletionResultSchema = z.object({
  traces: z.number().int(),
  exposures: z.number().int(),
  /** Runs that read the traces: kept, with their prompts, answers and outputs emptied. */
  runsEmptied: z.number().int(),
  /** Deltas that cite the traces or those runs: kept, with their rationales and evidence notes rewritten. */
  deltasRewritten: z.number().int(),
});
export type TraceDeletionResult = z.infer<typeof traceDeletionResultSchema>;
