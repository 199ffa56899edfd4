// The experiments' wire contract: creating and changing an experiment, assigning a unit, and the
// results. The same schemas validate tRPC input, the HTTP API (/api/v1/experiments/**) and generate
// its OpenAPI document. The one file of server/experiments that client code may import.
import { z } from "zod";

export const EXPERIMENT_STATUSES = ["draft", "running", "stopped"] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

export const GUARDRAILS = ["costUsd", "tokens", "durationMs"] as const;
export type Guardrail = (typeof GUARDRAILS)[number];

export const PRIMARY_METRICS = ["successRate"] as const;

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 10;
/** Weights must sum to 1 within this tolerance (the same as server/ace/experiments). */
export const WEIGHT_SUM_TOLERANCE = 0.001;
export const MAX_UNIT_ID = 200;
export const EXPERIMENT_KEY_MAX = 64;

/** Significance level of the comparisons, the guardrails and the power figures (two-sided). */
export const ALPHA = 0.05;
/** Power the planned sample and the MDE at the current sample are computed for. */
export const POWER = 0.8;

const statusSchema = z.enum(EXPERIMENT_STATUSES, { error: 'status is "draft", "running" or "stopped".' });

export const experimentKeySchema = z
  .string({ error: "key is text: a slug such as tone-v2." })
  .trim()
  .min(1, "key is empty: name the experiment with a slug such as tone-v2.")
  .max(EXPERIMENT_KEY_MAX, `key has at most ${EXPERIMENT_KEY_MAX} characters.`)
  .regex(/^[a-z0-9]+(?:[-_.][a-z0-9]+)*$/, "key is a slug: lowercase letters and digits, separated by single - _ or . (e.g. tone-v2).")
  .describe("The experiment's unique slug; GrowthBook's experiment key.");

export const variantKeySchema = z
  .string({ error: "A variant key is text, e.g. A." })
  .trim()
  .min(1, "A variant key is empty: name it, e.g. A or curated.")
  .max(50, "A variant key has at most 50 characters.")
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "A variant key is letters and digits, with - _ or . inside (e.g. A, curated-v7).");

export const unitIdSchema = z
  .string({ error: "unitId is text: the id of the agent, user or task being randomised." })
  .trim()
  .min(1, "unitId is empty: send the id of the agent, user or task being randomised.")
  .max(MAX_UNIT_ID, `unitId has at most ${MAX_UNIT_ID} characters.`)
  .describe("The unit of randomisation: the same id always gets the same variant.");

const weightSchema = z
  .number({ error: "weight is a number between 0 and 1, e.g. 0.5." })
  .gt(0, "weight must be greater than 0 (leave a variant out instead).")
  .max(1, "weight is at most 1.");

/**
 * A variant as sent: a key, a name, a weight and one target. Without a target the variant serves the
 * playbook's latest version (`latest: true`).
 */
export const variantInputSchema = z
  .strictObject({
    key: variantKeySchema,
    name: z.string().trim().min(1).max(200).optional().describe("Default: the key."),
    weight: weightSchema.optional().describe("Share of the units; all variants' weights sum to 1. Without any weight: an equal split."),
    playbookVersion: z
      .number({ error: "playbookVersion is a version number, e.g. 3." })
      .int("playbookVersion is a whole version number, e.g. 3.")
      .min(1, "Versions count from 1.")
      .optional()
      .describe("Serve the experiment's playbook pinned at this version."),
    latest: z
      .literal(true, { error: "latest is true or left out." })
      .optional()
      .describe("Serve the version current at assignment (the default)."),
    noPlaybook: z
      .literal(true, { error: "noPlaybook is true or left out." })
      .optional()
      .describe("Serve an empty context: the agent without a playbook."),
    playbook: z.string().trim().min(1).max(120).optional().describe("Serve another playbook (its name), at its latest version."),
  })
  .superRefine((variant, ctx) => {
    const targets = (["playbookVersion", "latest", "noPlaybook", "playbook"] as const).filter((field) => variant[field] !== undefined);
    if (targets.length > 1) {
      ctx.addIssue({
        code: "custom",
        path: [targets[1] as string],
        message: `A variant has one target: ${targets.join(" and ")} were both given. Keep one of playbookVersion, latest, noPlaybook, playbook.`,
      });
    }
  });
export type VariantInput = z.input<typeof variantInputSchema>;

/** The checks every variant list passes: 2–10 variants, unique keys, weights all given or none, summing to 1. */
function checkVariants(variants: readonly z.output<typeof variantInputSchema>[], ctx: z.RefinementCtx, path: (string | number)[]): void {
  if (variants.length < MIN_VARIANTS) {
    ctx.addIssue({
      code: "custom",
      path,
      message: `An experiment needs at least ${MIN_VARIANTS} variants (the first is the control); got ${variants.length}.`,
    });
  }
  if (variants.length > MAX_VARIANTS) {
    ctx.addIssue({ code: "custom", path, message: `An experiment has at most ${MAX_VARIANTS} variants; got ${variants.length}.` });
  }
  const seen = new Map<string, number>();
  variants.forEach((variant, index) => {
    const first = seen.get(variant.key);
    if (first !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: [...path, index, "key"],
        message: `Variant key "${variant.key}" is used twice (variants ${first} and ${index}); keys are unique.`,
      });
    } else {
      seen.set(variant.key, index);
    }
  });
  const weighted = variants.filter((variant) => variant.weight !== undefined).length;
  if (weighted > 0 && weighted < variants.length) {
    const missing = variants.findIndex((variant) => variant.weight === undefined);
    ctx.addIssue({
      code: "custom",
      path: [...path, missing, "weight"],
      message: "Give every variant a weight, or none for an equal split.",
    });
  } else if (weighted === variants.length && variants.length > 0) {
    const sum = variants.reduce((total, variant) => total + (variant.weight ?? 0), 0);
    if (Math.abs(sum - 1) > WEIGHT_SUM_TOLERANCE) {
      ctx.addIssue({
        code: "custom",
        path,
        message: `The variants' weights must sum to 1 (±${WEIGHT_SUM_TOLERANCE}); they sum to ${Number(sum.toFixed(6))}.`,
      });
    }
  }
}

const variantListSchema = z
  .array(variantInputSchema, { error: "variants is a list of { key, name, weight, target }." })
  .superRefine((variants, ctx) => checkVariants(variants, ctx, []));

const coverageSchema = z
  .number({ error: "coverage is a number between 0 and 1, e.g. 1 for every unit." })
  .min(0, "coverage is at least 0.")
  .max(1, "coverage is at most 1.")
  .describe("Share of all units that enter the experiment; default 1.");

const seedSchema = z
  .string()
  .trim()
  .min(1, "seed is empty: leave it out to use the key.")
  .max(200)
  .describe("Hashing seed; default: the key.");

const mdeSchema = z
  .number({ error: "minimumDetectableEffect is an absolute difference in success rate, e.g. 0.05 for 5 points." })
  .gt(0, "minimumDetectableEffect must be greater than 0.")
  .lt(1, "minimumDetectableEffect is an absolute difference in success rate, below 1.")
  .describe("The smallest absolute change in success rate worth detecting (0.05 = 5 percentage points).");

const plannedSchema = z
  .number({ error: "plannedUnitsPerVariant is a whole number of units." })
  .int("plannedUnitsPerVariant is a whole number of units.")
  .min(1, "plannedUnitsPerVariant is at least 1.")
  .max(100_000_000)
  .describe("Units per variant the fixed-horizon design reads the results at; until then results are early.");

const guardrailsSchema = z
  .array(z.enum(GUARDRAILS, { error: `A guardrail is one of ${GUARDRAILS.join(", ")}.` }))
  .max(GUARDRAILS.length)
  .describe("Means per trace watched for harm; default all three.");

const nameSchema = z.string({ error: "name is text." }).trim().min(1, "Name the experiment.").max(200);
const hypothesisSchema = z.string().trim().max(5_000, "hypothesis has at most 5,000 characters.");

/** POST /api/v1/experiments and experiments.create. */
export const createExperimentInput = z.strictObject({
  key: experimentKeySchema,
  name: nameSchema.optional().describe("Default: the key."),
  playbook: z.string({ error: "playbook is the playbook's name." }).trim().min(1, "Name the playbook the experiment runs on.").max(120),
  hypothesis: hypothesisSchema.default(""),
  status: statusSchema.default("draft").describe('"running" starts it at once.'),
  coverage: coverageSchema.default(1),
  seed: seedSchema.optional(),
  variants: variantListSchema,
  primaryMetric: z.enum(PRIMARY_METRICS).default("successRate"),
  guardrails: guardrailsSchema.default([...GUARDRAILS]),
  minimumDetectableEffect: mdeSchema.nullish(),
  plannedUnitsPerVariant: plannedSchema.nullish(),
});
export type CreateExperimentInput = z.input<typeof createExperimentInput>;

/**
 * PATCH /api/v1/experiments/{key} and experiments.update: only the fields sent change. `status`
 * starts or stops it. Changing `variants` weights or `coverage` of a running experiment starts a new
 * phase (a new seed, its own analysis window) and needs `confirmNewPhase: true`.
 */
export const updateExperimentFields = z.strictObject({
  name: nameSchema.optional(),
  hypothesis: hypothesisSchema.optional(),
  status: statusSchema.optional(),
  coverage: coverageSchema.optional(),
  seed: seedSchema.optional().describe("Only before the experiment first starts."),
  variants: variantListSchema.optional().describe("The whole list. Once started, only the weights may change (same keys, same targets)."),
  guardrails: guardrailsSchema.optional(),
  minimumDetectableEffect: mdeSchema.nullish(),
  plannedUnitsPerVariant: plannedSchema.nullish(),
  confirmNewPhase: z
    .boolean()
    .optional()
    .describe("true: you accept that the change starts a new phase, whose units are re-randomised and analysed apart."),
});
export type UpdateExperimentFields = z.input<typeof updateExperimentFields>;

export const experimentKeyInput = z.object({ key: experimentKeySchema });
export const updateExperimentInput = updateExperimentFields.extend({ key: experimentKeySchema });

/** POST /api/v1/experiments/{key}/assign. */
export const assignInput = z.strictObject({ unitId: unitIdSchema });

export const resultsInput = z.object({
  key: experimentKeySchema,
  /** Default: the current (or last) phase. Phases are never pooled. */
  phase: z
    .number({ error: "phase is a phase number, e.g. phase=2." })
    .int("phase is a whole phase number, e.g. phase=2.")
    .min(1, "Phases count from 1.")
    .optional(),
});

export const listExperimentsInput = z
  .object({
    playbookId: z.uuid().optional(),
    status: statusSchema.optional(),
  })
  .default({});

export const decideInput = z.discriminatedUnion("action", [
  z.object({
    key: experimentKeySchema,
    action: z.literal("ship"),
    variant: variantKeySchema,
    note: z.string().trim().max(5_000).default(""),
    /** When the shipped variant pins an older version: roll the playbook back to it (a new version). */
    rollback: z.boolean().default(false),
  }),
  z.object({ key: experimentKeySchema, action: z.literal("stop"), note: z.string().trim().max(5_000).default("") }),
]);
export type DecideInput = z.input<typeof decideInput>;

/** The sample-size calculator of /experiments/new. */
export const sampleSizeInput = z.object({
  baseline: z.number().gt(0, "The baseline success rate is above 0.").lt(1, "The baseline success rate is below 1."),
  mde: mdeSchema,
  alpha: z.number().gt(0).lt(1).default(ALPHA),
  power: z.number().gt(0).lt(1).default(POWER),
});

// ---- What comes back -----------------------------------------------------------------------

const instant = z.string().describe("ISO 8601, UTC.");
const count = z.number().int().min(0);
const interval = z.tuple([z.number(), z.number()]).nullable();

export const TARGET_KINDS = ["version", "latest", "noPlaybook", "playbook"] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export const variantTargetSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("version"), playbookVersion: z.number().int() }),
  z.object({ kind: z.literal("latest") }),
  z.object({ kind: z.literal("noPlaybook") }),
  z.object({
    kind: z.literal("playbook"),
    playbook: z.string().nullable().describe("The other playbook's name; null when it was deleted since."),
    playbookId: z.string().nullable(),
  }),
]);
export type VariantTarget = z.infer<typeof variantTargetSchema>;

export const variantViewSchema = z.object({
  key: z.string(),
  name: z.string(),
  weight: z.number(),
  target: variantTargetSchema,
  /** The same target in the body's own words, so a definition can be sent back as it came. */
  playbookVersion: z.number().int().optional(),
  latest: z.literal(true).optional(),
  noPlaybook: z.literal(true).optional(),
  playbook: z.string().optional(),
});
export type VariantView = z.infer<typeof variantViewSchema>;

export const phaseViewSchema = z.object({
  number: z.number().int(),
  seed: z.string(),
  coverage: z.number(),
  weights: z.array(z.number()).describe("In variant order."),
  startedAt: instant,
  endedAt: instant.nullable(),
});
export type PhaseView = z.infer<typeof phaseViewSchema>;

export const decisionSchema = z.object({
  action: z.enum(["ship", "stop"]),
  variant: z.string().nullable().describe("The shipped variant; null for a stop without a winner."),
  note: z.string(),
  by: z.string(),
  at: instant,
  rolledBackToVersion: z.number().int().nullable().describe("The pinned version the playbook was rolled back to, when it was."),
});
export type Decision = z.infer<typeof decisionSchema>;

export const experimentDefinitionSchema = z.object({
  key: z.string(),
  name: z.string(),
  hypothesis: z.string(),
  playbook: z.string(),
  playbookId: z.string(),
  status: z.enum(EXPERIMENT_STATUSES),
  control: z.string().describe("The first variant's key."),
  variants: z.array(variantViewSchema),
  coverage: z.number(),
  seed: z.string().describe("The current phase's hashing seed (the experiment's seed before it starts)."),
  hashVersion: z.literal(2),
  hashAttribute: z.literal("id"),
  weights: z.array(z.number()),
  variations: z.array(z.string()).describe("The variant keys, in order: GrowthBook's variations."),
  phase: phaseViewSchema.nullable().describe("The current (or last) phase; null before the first start."),
  phases: z.array(phaseViewSchema),
  growthbook: z
    .object({
      key: z.string(),
      seed: z.string(),
      hashVersion: z.literal(2),
      hashAttribute: z.literal("id"),
      variations: z.array(z.string()),
      weights: z.array(z.number()),
      coverage: z.number(),
      phase: z.string().nullable(),
    })
    .describe("An inline experiment for a GrowthBook SDK: with attributes { id: unitId } it picks the variant this server assigns."),
  primaryMetric: z.enum(PRIMARY_METRICS),
  guardrails: z.array(z.enum(GUARDRAILS)),
  minimumDetectableEffect: z.number().nullable(),
  plannedUnitsPerVariant: z.number().int().nullable(),
  startedAt: instant.nullable(),
  stoppedAt: instant.nullable(),
  /** When the stopped experiment was archived: its traces and exposures may then expire (its results stay). */
  archivedAt: instant.nullable(),
  decision: decisionSchema.nullable(),
  createdBy: z.string(),
  createdAt: instant,
  updatedAt: instant,
});
export type ExperimentDefinition = z.infer<typeof experimentDefinitionSchema>;

export const ASSIGNMENT_REASONS = ["outside_coverage", "draft", "stopped"] as const;
export type AssignmentReason = (typeof ASSIGNMENT_REASONS)[number];

export const assignmentResultSchema = z.object({
  experiment: z.string(),
  unitId: z.string(),
  inExperiment: z.boolean(),
  variant: z.string().nullable(),
  reason: z
    .enum(ASSIGNMENT_REASONS)
    .nullable()
    .describe("Why variant is null: outside_coverage, draft (not started yet) or stopped. Null when assigned."),
  hashValue: z.number().describe("The unit's GrowthBook hash (version 2) in [0, 1) for the current seed."),
  phase: z.number().int().nullable(),
  playbook: z.string().nullable().describe("The playbook the variant serves; null for noPlaybook or when not assigned."),
  playbookVersion: z.number().int().nullable().describe("The version it serves: the pinned one, or the current one for latest."),
  target: variantTargetSchema.nullable(),
  firstExposure: z.boolean().describe("true when this call recorded the unit's first exposure in the phase."),
});
export type AssignmentResult = z.infer<typeof assignmentResultSchema>;

const meanFields = {
  n: count,
  mean: z.number().nullable(),
};
export const guardrailResultSchema = z.object({
  metric: z.enum(GUARDRAILS),
  control: z.object(meanFields),
  variant: z.object(meanFields),
  difference: z.number().nullable().describe("variant − control, per trace."),
  ci95: interval.describe("Welch's interval (Welch–Satterthwaite df)."),
  pValue: z.number().nullable().describe("Welch's t-test, two-sided."),
  worse: z.boolean().describe("Significantly higher (worse) than the control: p < 0.05 and difference > 0."),
});
export type GuardrailResult = z.infer<typeof guardrailResultSchema>;

export const pairedResultSchema = z.object({
  tasks: count.describe("Tasks with a decided trace under both the control and the variant (the first per task and variant)."),
  bothSuccess: count,
  onlyControl: count.describe("The control succeeded and the variant failed."),
  onlyVariant: count.describe("The variant succeeded and the control failed."),
  bothFail: count,
  pValue: z.number().nullable().describe("Exact McNemar: two-sided binomial test on the discordant pairs, p = 0.5; null without one."),
});
export type PairedResult = z.infer<typeof pairedResultSchema>;

export const powerResultSchema = z.object({
  alpha: z.number(),
  power: z.number(),
  baseline: z.number().nullable().describe("The control's success rate, the baseline of the figures below."),
  unitsPerVariant: count.describe("The smaller of the two variants' analysed units."),
  plannedUnitsPerVariant: z.number().int().nullable(),
  minimumDetectableEffect: z.number().nullable().describe("The experiment's MDE, as planned."),
  mdeAtCurrentSample: z
    .number()
    .nullable()
    .describe("The smallest absolute difference detectable now (α, power); null when none is detectable yet."),
  powerAtPlannedMde: z.number().nullable(),
});
export type PowerResult = z.infer<typeof powerResultSchema>;

export const comparisonSchema = z.object({
  variant: z.string(),
  control: z.string(),
  metric: z.literal("successRate"),
  absoluteDiff: z.number().nullable().describe("variant − control success rate."),
  ci95: interval.describe("per-trace: Newcombe's hybrid score interval; per-unit: delta-method Welch interval. Not adjusted."),
  relativeUplift: z.number().nullable().describe("absoluteDiff ÷ the control's rate; null when the control's rate is 0."),
  pValue: z.number().nullable().describe("per-trace: pooled two-proportion z-test; per-unit: delta-method Welch test. Two-sided."),
  adjustedPValue: z.number().nullable().describe("Holm over all comparisons with the control."),
  significant: z.boolean().describe("adjustedPValue < 0.05."),
  chanceToBeatControl: z
    .number()
    .nullable()
    .describe("per-trace: exact Beta(1 + success, 1 + failure) posteriors; per-unit: normal approximation."),
  guardrails: z.array(guardrailResultSchema),
  paired: pairedResultSchema,
  power: powerResultSchema,
});
export type ComparisonResult = z.infer<typeof comparisonSchema>;

export const versionBreakdownSchema = z.object({
  playbookVersion: z.number().int().nullable(),
  traces: count,
  success: count,
  failure: count,
  successRate: z.number().nullable(),
  ci95: interval,
});

export const variantResultSchema = z.object({
  key: z.string(),
  name: z.string(),
  weight: z.number().describe("The phase's weight."),
  target: variantTargetSchema,
  units: count.describe("Distinct units exposed (first exposure; crossovers excluded). A trace without unitId is a unit of its own."),
  crossovers: count.describe("Units first exposed here and later seen in another variant: left out of the analysis."),
  traces: count,
  success: count,
  failure: count,
  unknown: count,
  successRate: z.number().nullable().describe("success ÷ (success + failure)."),
  ci95: interval.describe("Wilson score interval, 95 %."),
  unitsWithSeveralDecidedTraces: count.describe("Units with two or more decided traces: any makes the analysis per-unit."),
  meanCostUsd: z.number().nullable(),
  meanTokens: z.number().nullable().describe("inputTokens + outputTokens per trace that reported usage."),
  meanDurationMs: z.number().nullable(),
  byVersion: z
    .array(versionBreakdownSchema)
    .describe("The units' traces split by the playbook version served at their first exposure (null: not known, or no playbook)."),
});
export type VariantResult = z.infer<typeof variantResultSchema>;

export const timelinePointSchema = z.object({
  date: z.string().describe("UTC day of first exposure, YYYY-MM-DD: the point counts every unit exposed by then, with all its traces."),
  variants: z.array(
    z.object({
      key: z.string(),
      success: count.describe("Cumulative up to and including this day."),
      decided: count,
      successRate: z.number().nullable(),
    }),
  ),
});

export const experimentResultsSchema = z.object({
  experiment: z.string(),
  name: z.string(),
  status: z.enum(EXPERIMENT_STATUSES),
  control: z.string(),
  phase: phaseViewSchema.nullable(),
  analysis: z
    .enum(["per-trace", "per-unit"])
    .describe("per-unit when some unit has more than one decided trace (ratio metric, delta method)."),
  design: z.literal("fixed-horizon").describe("Read the p-values once the planned sample is reached; before that results are early."),
  early: z.boolean(),
  progress: z
    .object({
      unitsPerVariant: count.describe("The smallest variant's analysed units."),
      plannedUnitsPerVariant: z.number().int().nullable(),
      fraction: z.number().nullable().describe("unitsPerVariant ÷ planned, at most 1; null without a plan."),
    })
    .describe("How far along the fixed-horizon design is."),
  variants: z.array(variantResultSchema),
  comparisons: z.array(comparisonSchema),
  srm: z.object({
    chiSquare: z.number(),
    degreesOfFreedom: z.number().int(),
    pValue: z.number(),
    flagged: z.boolean().describe("p < 0.001: assignment or logging is broken, and no other figure can be trusted."),
    observed: z.array(count),
    expected: z.array(z.number()),
  }),
  paired: pairedResultSchema.nullable().describe("With two variants, the comparison's paired figures."),
  power: powerResultSchema.nullable().describe("With two variants, the comparison's power figures."),
  crossovers: count,
  tracesWithoutUnit: count,
  timeline: z.array(timelinePointSchema),
  methods: z.record(z.string(), z.string()).describe("How each figure was computed, for the page's methods note."),
  computedAt: instant,
});
export type ExperimentResults = z.infer<typeof experimentResultsSchema>;

export const experimentListItemSchema = z.object({
  key: z.string(),
  name: z.string(),
  playbook: z.string(),
  playbookId: z.string(),
  status: z.enum(EXPERIMENT_STATUSES),
  variants: z.array(z.object({ key: z.string(), name: z.string(), weight: z.number() })),
  phase: z.number().int().nullable(),
  leader: z
    .object({
      variant: z.string(),
      successRate: z.number().nullable(),
      significant: z.boolean().describe("The leader beats every other variant significantly (Holm-adjusted p < 0.05 against the control)."),
    })
    .nullable(),
  srmFlagged: z.boolean(),
  early: z.boolean(),
  progress: z.number().nullable().describe("Fraction of the planned sample reached, at most 1; null without a plan."),
  units: count,
  traces: count,
  startedAt: instant.nullable(),
  stoppedAt: instant.nullable(),
  decision: decisionSchema.nullable(),
  updatedAt: instant,
});
export type ExperimentListItem = z.infer<typeof experimentListItemSchema>;

export const decisionResultSchema = z.object({
  experiment: experimentDefinitionSchema,
  rollback: z
    .object({ version: z.number().int(), rolledBackTo: z.number().int(), deltaId: z.string(), message: z.string() })
    .nullable()
    .describe("The rollback performed, when asked for."),
  rollbackOffer: z
    .object({ playbookVersion: z.number().int(), currentVersion: z.number().int() })
    .nullable()
    .describe("The shipped variant pins an older version: ship again with rollback: true to roll the playbook back to it."),
  message: z.string(),
});
export type DecisionResult = z.infer<typeof decisionResultSchema>;
