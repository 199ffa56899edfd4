// The metrics' wire contract: the query of GET /api/v1/playbooks/{name}/metrics and of the tRPC
// procedures, and what they return. The same schemas validate both and generate the OpenAPI
// document. The one file of server/metrics that client code may import.
import { z } from "zod";
import { instantParameter, queryParameterValues } from "../http/query";
import { DELTA_OPERATION_TYPES, DELTA_ORIGINS } from "../deltas/schemas";
import { BUCKET_MS, BUCKETS, bucketRange, MAX_BUCKETS, truncateToBucket, type Bucket } from "./buckets";

// The bucket arithmetic is pure: the charts in the browser use this one copy through this file.
export { BUCKET_MS, BUCKETS, bucketRange, MAX_BUCKETS, truncateToBucket, type Bucket };

/** Without `from`, a range of this length before `to`. */
export const DEFAULT_RANGE_MS = 30 * 24 * 3_600_000;
/** Versions listed at most; the rest are counted in versionsOmitted (ask for a shorter range). */
export const MAX_VERSIONS = 5_000;
/** Bullets listed per direction in movers. */
export const MOVERS_LIMIT = 10;

// ---- The query -----------------------------------------------------------------------------

const label = (name: string) =>
  z
    .string({ error: `${name} is text, e.g. ${name}=A.` })
    .trim()
    .min(1, `${name} is empty: leave it out, or name one.`)
    .max(100, `${name} has at most 100 characters.`);

const variantSchema = label("variant").describe("Only traces of this variant; without experiment, of any experiment.");
const experimentSchema = label("experiment").describe("Only traces of this experiment (its key).");
const bucketSchema = z
  .enum(BUCKETS, { error: 'bucket is "hour", "day" or "week".' })
  .default("day")
  .describe("Bucket size, in UTC: hours, days from 00:00, weeks from Monday 00:00.");
const contentOnlySchema = z
  .boolean({ error: "contentOnly is true or false." })
  .default(true)
  .describe("true: versions that changed content (not a reflection's counter-only tags, nor settings); false: every version.");
const scoresAtSchema = z
  .number({ error: "scoresAt is a version number, e.g. scoresAt=12." })
  .int("scoresAt is a version number, e.g. scoresAt=12.")
  .min(1, "Versions count from 1.")
  .describe("The version whose bullet score distribution to return. Default: the last version before `to`.");

/** The query once parsed, from either side (HTTP text or tRPC values). */
export interface MetricsQuery {
  from?: Date;
  to?: Date;
  bucket: Bucket;
  experiment?: string;
  variant?: string;
  contentOnly: boolean;
  scoresAt?: number;
}

export interface ResolvedRange {
  /** `from` as given (or the default); buckets start at its truncation. */
  from: Date;
  /** Exclusive. */
  to: Date;
  bucket: Bucket;
}

/** The default range, and the checks that name a parameter: `to` after `from`, not too many buckets. */
export function resolveRange(query: { from?: Date; to?: Date; bucket: Bucket }, now = new Date()): ResolvedRange {
  const to = query.to ?? now;
  const from = query.from ?? new Date(to.getTime() - DEFAULT_RANGE_MS);
  return { from, to, bucket: query.bucket };
}

function checkRange(query: { from?: Date; to?: Date; bucket: Bucket }, ctx: z.RefinementCtx) {
  const { from, to, bucket } = resolveRange(query);
  if (to.getTime() <= from.getTime()) {
    ctx.addIssue({ code: "custom", path: ["to"], message: `to (${to.toISOString()}) must be later than from (${from.toISOString()}).` });
    return;
  }
  const { count } = bucketRange(from, to, bucket);
  if (count > MAX_BUCKETS) {
    const wider = BUCKETS.filter((candidate) => BUCKET_MS[candidate] > BUCKET_MS[bucket]);
    ctx.addIssue({
      code: "custom",
      path: ["bucket"],
      message:
        `The range holds ${count.toLocaleString("en")} ${bucket} buckets; at most ${MAX_BUCKETS.toLocaleString("en")} are returned. ` +
        (wider.length > 0 ? `Widen the bucket (bucket=${wider.join(" or bucket=")}) or shorten the range.` : "Shorten the range."),
    });
  }
}

function rangeParameter(name: "from" | "to") {
  return instantParameter(name).describe(
    name === "from" ? "Start, truncated to the start of its bucket. Default: 30 days before `to`." : "End, exclusive. Default: now.",
  );
}

const TRUE_WORDS = new Set(["true", "1", "yes"]);
const FALSE_WORDS = new Set(["false", "0", "no"]);

/** What a playbook's metrics are asked for with, besides the range: the same over HTTP and tRPC. */
const metricsOptions = {
  bucket: bucketSchema,
  experiment: experimentSchema.optional(),
  variant: variantSchema.optional(),
  contentOnly: contentOnlySchema,
  scoresAt: scoresAtSchema.optional(),
};

/** GET /api/v1/playbooks/{name}/metrics: the query parameters as text. */
export const metricsQueryParamsSchema = z
  .object({ from: rangeParameter("from").optional(), to: rangeParameter("to").optional(), ...metricsOptions })
  .superRefine(checkRange);

/** Names of the query parameters the endpoint reads (others are refused, to catch typos). */
const QUERY_PARAMETERS = ["from", "to", "bucket", "experiment", "variant", "contentOnly", "scoresAt"] as const;

/**
 * Query parameters are text: numbers and booleans are converted here and anything else passed on
 * as the text it was, so the schema reports it with the parameter's name. A parameter given twice,
 * or one the endpoint does not know, is a 400 naming it.
 */
export function parseMetricsQuery(params: URLSearchParams): MetricsQuery {
  const raw: Record<string, unknown> = queryParameterValues(params, QUERY_PARAMETERS);
  if (raw.contentOnly !== undefined) {
    const word = String(raw.contentOnly).toLowerCase();
    raw.contentOnly = TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : raw.contentOnly;
  }
  if (typeof raw.scoresAt === "string" && /^\d+$/.test(raw.scoresAt)) raw.scoresAt = Number(raw.scoresAt);
  return metricsQueryParamsSchema.parse(raw);
}

/** tRPC: a playbook's metrics by id, with the same options. */
export const playbookMetricsInput = z
  .object({ playbookId: z.uuid(), from: z.date().optional(), to: z.date().optional(), ...metricsOptions })
  .superRefine(checkRange);

/** tRPC: the studio overview, one row per playbook. */
export const overviewInput = z.object({ from: z.date().optional(), to: z.date().optional(), bucket: bucketSchema }).superRefine(checkRange);

/** tRPC: the stored figures of one version (the score distribution at a chosen version). */
export const versionFiguresInput = z.object({ playbookId: z.uuid(), version: z.number().int().min(1, "Versions count from 1.") });

// ---- What comes back -----------------------------------------------------------------------

const instant = z.string().describe("ISO 8601, UTC.");
const count = z.number().int().min(0);
const rate = z.number().min(0).max(1).nullable();
const interval = z
  .tuple([z.number(), z.number()])
  .nullable()
  .describe("Wilson score interval, 95 % (z = 1.959963984540054); null when there is nothing to rate.");
const quantile = z.number().nullable();

const outcomeFields = {
  traces: count,
  success: count,
  failure: count,
  unknown: count.describe("Counted, but not in the rate."),
  successRate: rate.describe("success ÷ (success + failure); null when both are 0."),
  ci95: interval,
  inputTokens: z.number().min(0).describe("The agents' own tokens (usage.inputTokens)."),
  outputTokens: z.number().min(0),
  costUsd: z.number().min(0).describe("The agents' own cost (usage.costUsd); traces without one add nothing."),
  p50DurationMs: quantile.describe(
    "Median durationMs (percentile_cont: linear interpolation); null without durations, and in outcomesByVariant.",
  ),
  p95DurationMs: quantile,
};

export const outcomeTotalsSchema = z.object(outcomeFields);
export const outcomeBucketSchema = z.object({
  start: instant.describe("Start of the bucket: it holds traces with start ≤ timestamp < start + 1 bucket."),
  ...outcomeFields,
});
export type OutcomeTotals = z.infer<typeof outcomeTotalsSchema>;
export type OutcomeBucket = z.infer<typeof outcomeBucketSchema>;

export const variantSeriesSchema = z
  .object({
    variant: z.string(),
    totals: outcomeTotalsSchema,
    outcomes: z.array(outcomeBucketSchema),
  })
  .describe("A variant's outcomes, with p50DurationMs and p95DurationMs null: ask with variant=… for a variant's quantiles.");
export type VariantSeries = z.infer<typeof variantSeriesSchema>;

export const VERSION_ORIGINS = [...DELTA_ORIGINS, "settings"] as const;
export type VersionOrigin = (typeof VERSION_ORIGINS)[number];

const operationCountsSchema = z
  .partialRecord(z.enum(DELTA_OPERATION_TYPES), count)
  .describe("What the version's recorded changes amount to, by operation type (a merge counts once per kept bullet).");

export const sectionFiguresSchema = z.object({ id: z.string(), name: z.string(), activeBullets: count });

export const versionPointSchema = z.object({
  version: z.number().int(),
  createdAt: instant,
  origin: z.enum(VERSION_ORIGINS).describe("The delta's origin; import or settings for versions written without a delta."),
  author: z.string(),
  reason: z.string().describe("Why, as recorded (the first 300 characters)."),
  deltaId: z.string().nullable(),
  contentChanged: z.boolean(),
  countersChanged: z.boolean(),
  operations: operationCountsSchema,
  activeBullets: count,
  archivedBullets: count,
  sections: z.array(sectionFiguresSchema).describe("Active bullets per section, in playbook order."),
  helpful: z.number().int().describe("Counter totals over the active bullets."),
  harmful: z.number().int(),
  neutral: z.number().int(),
  tokens: count.describe("Tokens (o200k) of the compiled playbook with every active bullet."),
});
export type VersionPoint = z.infer<typeof versionPointSchema>;

export const counterBucketSchema = z.object({
  start: instant,
  version: z.number().int().nullable().describe("The latest version by the end of the bucket; null before the first."),
  helpful: z.number().int().nullable(),
  harmful: z.number().int().nullable(),
  neutral: z.number().int().nullable(),
});
export type CounterBucket = z.infer<typeof counterBucketSchema>;

export const scoreDistributionSchema = z.object({
  version: z.number().int(),
  distribution: z
    .array(z.tuple([z.number().int(), count]))
    .describe("[helpful − harmful, bullets] of the active bullets with counters, ascending by score."),
});

export const moverSchema = z.object({
  bulletId: z.string(),
  section: z.string().nullable(),
  content: z.string().nullable().describe("The first 200 characters; null when no such bullet exists any more."),
  status: z.enum(["active", "archived"]).nullable(),
  helpful: z.number().int().nullable().describe("Now."),
  harmful: z.number().int().nullable(),
  helpfulChange: z.number().int().describe("Tagged in the range."),
  harmfulChange: z.number().int(),
  scoreChange: z.number().int().describe("helpfulChange − harmfulChange."),
});
export type Mover = z.infer<typeof moverSchema>;

export const churnBucketSchema = z.object({
  start: instant,
  operations: operationCountsSchema,
  byOrigin: z.partialRecord(z.enum(VERSION_ORIGINS), operationCountsSchema),
});
export type ChurnBucket = z.infer<typeof churnBucketSchema>;

const reviewFields = {
  origin: z.enum(DELTA_ORIGINS),
  proposed: count.describe("Deltas created."),
  approved: count.describe("Of those, applied by a person (edits included)."),
  autoApplied: count,
  rejected: count,
  pending: count,
  stale: count,
  nearDuplicates: count.describe("Operations flagged as near-duplicates of an existing bullet."),
  medianDecisionMs: quantile.describe("From proposal to a person's decision (approved or rejected); percentile_cont."),
};

export const reviewBucketSchema = z.object({ start: instant, ...reviewFields });
export const reviewTotalsSchema = z.object({
  ...reviewFields,
  p90DecisionMs: quantile,
  acceptanceRate: rate.describe("(approved + autoApplied) ÷ (approved + autoApplied + rejected)."),
  ci95: interval,
  autoAppliedShare: rate.describe("autoApplied ÷ proposed."),
});
export type ReviewBucket = z.infer<typeof reviewBucketSchema>;
export type ReviewTotals = z.infer<typeof reviewTotalsSchema>;

export const LLM_ROLES = ["reflector", "curator", "agent"] as const;
export type LlmRole = (typeof LLM_ROLES)[number];

const llmFields = {
  role: z.enum(LLM_ROLES),
  runs: count.describe("Runs; for the agent, traces."),
  failed: count.nullable().describe("Failed runs; null for the agent (its failures are outcomes)."),
  retried: count.nullable().describe("Runs that took more than one attempt; null for the agent."),
  inputTokens: z.number().min(0),
  outputTokens: z.number().min(0),
  costUsd: z.number().min(0),
  uncosted: count.describe("Runs (traces) without a cost: a model without a price, or an agent that sent none."),
  p50LatencyMs: quantile.describe("Run latency; for the agent, durationMs (percentile_cont)."),
  p95LatencyMs: quantile,
};
export const llmBucketSchema = z.object({ start: instant, ...llmFields });
export const llmTotalsSchema = z.object(llmFields);
export type LlmBucket = z.infer<typeof llmBucketSchema>;
export type LlmTotals = z.infer<typeof llmTotalsSchema>;

export const metricsResultSchema = z.object({
  playbook: z.string(),
  playbookId: z.string(),
  bucket: z.enum(BUCKETS),
  from: instant.describe("Start of the first bucket (`from` truncated)."),
  to: instant.describe("Exclusive end, as asked."),
  timezone: z.literal("UTC"),
  experiment: z.string().nullable(),
  variant: z.string().nullable(),
  contentOnly: z.boolean(),
  earliest: instant.nullable().describe("The playbook's first version or trace, whichever is earlier: where an 'all' range starts."),
  tokenBudget: z.number().int().describe("The playbook's context token budget setting."),
  totals: outcomeTotalsSchema.describe("Outcomes over the whole range."),
  outcomes: z.array(outcomeBucketSchema).describe("Every bucket, empty ones with zeros. Filtered by experiment and variant."),
  outcomesByVariant: z.array(variantSeriesSchema).describe("One series per variant seen in the range, every bucket present."),
  versions: z.array(versionPointSchema).describe(`Versions made in the range, oldest first, at most ${MAX_VERSIONS.toLocaleString("en")}.`),
  versionsOmitted: count.describe("Versions in the range beyond the list (the newest are kept)."),
  previousVersion: versionPointSchema.nullable().describe("The last such version before the range: where per-version series start."),
  counters: z.array(counterBucketSchema).describe("Counter totals at the end of every bucket, whatever contentOnly says."),
  scores: scoreDistributionSchema.nullable(),
  movers: z.object({
    rose: z.array(moverSchema).describe(`Up to ${MOVERS_LIMIT} bullets whose helpful − harmful rose most from tags in the range.`),
    fell: z.array(moverSchema),
  }),
  churn: z.array(churnBucketSchema).describe("Operations per bucket by type, of every version (tags included)."),
  review: z.object({
    buckets: z.array(reviewBucketSchema).describe("Every bucket for every origin with a delta in the range."),
    byOrigin: z.array(reviewTotalsSchema),
  }),
  llm: z.object({
    buckets: z.array(llmBucketSchema).describe("Every bucket for each role: reflector, curator, agent."),
    byRole: z.array(llmTotalsSchema),
  }),
});
export type MetricsResult = z.infer<typeof metricsResultSchema>;

export const overviewRowSchema = z.object({
  playbookId: z.string(),
  name: z.string(),
  traces: count,
  success: count,
  failure: count,
  unknown: count,
  successRate: rate,
  ci95: interval,
  previousSuccessRate: rate.describe("Over the range of the same length just before."),
  previousTraces: count,
  change: z.number().nullable().describe("successRate − previousSuccessRate; null when either is null."),
  pendingDeltas: count,
  series: z.array(z.object({ start: instant, traces: count, successRate: rate })).describe("Every bucket of the range."),
});
export const overviewResultSchema = z.object({
  bucket: z.enum(BUCKETS),
  from: instant,
  to: instant,
  previousFrom: instant,
  timezone: z.literal("UTC"),
  playbooks: z.array(overviewRowSchema),
});
export type OverviewRow = z.infer<typeof overviewRowSchema>;
export type OverviewResult = z.infer<typeof overviewResultSchema>;

export const versionFiguresResultSchema = versionPointSchema.extend({ scores: scoreDistributionSchema.shape.distribution });
export type VersionFiguresResult = z.infer<typeof versionFiguresResultSchema>;
