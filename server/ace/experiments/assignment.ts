// Which variant of an experiment a unit (an agent, a user, a task) gets: GrowthBook's hashing,
// version 2, evaluated by GrowthBook's own SDK, so an agent holding a GrowthBook SDK in any language
// and the experiment's definition (key, seed, weights, coverage) gets the same variant offline.
//
//   n = (fnv1a32(String(fnv1a32(seed + unitId))) % 10000) / 10000    (FNV-1a over UTF-16 code units)
//
// Variant i owns [c_i, c_i + coverage × w_i) with c_i the sum of the weights before it; a unit whose
// n falls in no range is not in the experiment. The assignment depends on nothing but these
// inputs: the same unit gets the same variant after a restart and on any server. Changing the
// weights or coverage moves units, so a running experiment changes them only in a new phase with a
// new seed, analysed on its own.
import { GrowthBookClient, type Experiment } from "@growthbook/growthbook";

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 10;
/** Weights must sum to 1 within this tolerance. */
export const WEIGHT_SUM_TOLERANCE = 0.001;

export interface AssignmentInput {
  /** The experiment's key (GrowthBook's experiment key). */
  key: string;
  /** Hashing seed; a new phase gets a new seed. */
  seed: string;
  /** The unit of randomisation: the same id always gets the same answer for the same definition. */
  unitId: string;
  /** Share of units per variant, in variant order (the control first); 2–10 weights > 0 summing to 1. */
  weights: readonly number[];
  /** Share of all units that enter the experiment, in [0, 1]. */
  coverage: number;
  /**
   * The phase the definition belongs to. Carried into GrowthBook's experiment and returned so an
   * exposure is recorded against its phase; it does not change the hash (the seed does).
   */
  phase?: string;
}

export interface Assignment {
  inExperiment: boolean;
  /** Index into `weights`; null when the unit is outside the coverage. */
  variantIndex: number | null;
  /** The unit's hash n in [0, 1), four decimals, whether or not it is in the experiment. */
  hashValue: number;
  phase: string | null;
}

export class AssignmentInputError extends RangeError {
  override name = "AssignmentInputError";
}

function fail(message: string): never {
  throw new AssignmentInputError(`assignVariant: ${message}`);
}

/** Checks a definition and its unit; throws an AssignmentInputError naming the field. */
export function validateAssignmentInput(input: AssignmentInput): void {
  for (const field of ["key", "seed", "unitId"] as const) {
    if (typeof input[field] !== "string" || input[field].length === 0) fail(`${field} must be a non-empty string`);
  }
  if (input.phase !== undefined && typeof input.phase !== "string") fail("phase must be a string when given");
  const { weights, coverage } = input;
  if (!Array.isArray(weights) || weights.length < MIN_VARIANTS || weights.length > MAX_VARIANTS) {
    fail(`weights must list ${MIN_VARIANTS} to ${MAX_VARIANTS} variants, got ${Array.isArray(weights) ? weights.length : typeof weights}`);
  }
  weights.forEach((weight, i) => {
    if (!Number.isFinite(weight) || weight <= 0) fail(`weights[${i}] must be a number > 0, got ${weight}`);
  });
  const sum = weights.reduce((total, weight) => total + weight, 0);
  if (Math.abs(sum - 1) > WEIGHT_SUM_TOLERANCE) fail(`weights must sum to 1 (±${WEIGHT_SUM_TOLERANCE}), got ${sum}`);
  if (!Number.isFinite(coverage) || coverage < 0 || coverage > 1) fail(`coverage must be between 0 and 1, got ${coverage}`);
}

// One stateless client: no features, no network (init is never called), no tracking callback.
// Each evaluation gets a fresh user context, so nothing accumulates between calls.
const growthbook = new GrowthBookClient();

function evaluate(
  experiment: Experiment<number>,
  unitId: string,
): { inExperiment: boolean; variationId: number; bucket: number | undefined } {
  const result = growthbook.runInlineExperiment(experiment, { attributes: { id: unitId } });
  return { inExperiment: result.inExperiment && result.hashUsed === true, variationId: result.variationId, bucket: result.bucket };
}

/**
 * The variant of `unitId`, evaluated by GrowthBook's SDK with hashVersion 2. GrowthBook returns the
 * hash only for units it places in a variant; for a unit outside the coverage the hash comes from a
 * second evaluation whose one range covers [0, 1), so `hashValue` always shows where the unit fell.
 */
export function assignVariant(input: AssignmentInput): Assignment {
  validateAssignmentInput(input);
  const [first, second, ...rest] = input.weights.map((_, index) => index);
  const experiment: Experiment<number> = {
    key: input.key,
    seed: input.seed,
    hashVersion: 2,
    hashAttribute: "id",
    variations: [first as number, second as number, ...rest],
    weights: [...input.weights],
    coverage: input.coverage,
    disableStickyBucketing: true,
    ...(input.phase === undefined ? {} : { phase: input.phase }),
  };
  const phase = input.phase ?? null;
  const assigned = evaluate(experiment, input.unitId);
  if (assigned.inExperiment && assigned.bucket !== undefined) {
    return { inExperiment: true, variantIndex: assigned.variationId, hashValue: assigned.bucket, phase };
  }
  const probe = evaluate(
    {
      ...experiment,
      variations: [0, 1],
      weights: undefined,
      coverage: 1,
      ranges: [
        [0, 1],
        [1, 1],
      ],
    },
    input.unitId,
  );
  if (probe.bucket === undefined) throw new Error(`GrowthBook returned no hash for unit "${input.unitId}" in experiment "${input.key}"`);
  return { inExperiment: false, variantIndex: null, hashValue: probe.bucket, phase };
}
