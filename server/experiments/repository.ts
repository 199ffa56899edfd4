// Every database call of the experiments domain. Returns plain rows; rules live in service.ts.
// The results read rollups that triggers on "Trace" and "ExperimentExposure" keep exact (migration
// experiment_tallies): per-variant sums over units, so the statistics in server/ace/stats run on a
// few numbers and never on raw traces.
import { Prisma, type DbOrTx, type Tx } from "@/server/db/client";
import type { TargetKind } from "./schemas";

// ---- Definitions ----------------------------------------------------------------------------

const experimentSelect = {
  id: true,
  key: true,
  name: true,
  hypothesis: true,
  playbookId: true,
  status: true,
  coverage: true,
  seed: true,
  primaryMetric: true,
  guardrails: true,
  minimumDetectableEffect: true,
  plannedUnitsPerVariant: true,
  startedAt: true,
  stoppedAt: true,
  decisionAction: true,
  decisionVariant: true,
  decisionNote: true,
  decidedBy: true,
  decidedAt: true,
  decisionRollbackVersion: true,
  createdBy: true,
  createdAt: true,
  updatedAt: true,
  playbook: { select: { name: true, version: true } },
  variants: {
    orderBy: { position: "asc" },
    select: {
      key: true,
      name: true,
      weight: true,
      position: true,
      targetKind: true,
      playbookVersion: true,
      targetPlaybookId: true,
      targetPlaybook: { select: { name: true, version: true } },
    },
  },
  phases: {
    orderBy: { number: "asc" },
    select: { number: true, seed: true, coverage: true, weights: true, startedAt: true, endedAt: true },
  },
} satisfies Prisma.ExperimentSelect;

export type ExperimentRow = Prisma.ExperimentGetPayload<{ select: typeof experimentSelect }>;

export function findExperimentByKey(db: DbOrTx, key: string): Promise<ExperimentRow | null> {
  return db.experiment.findUnique({ where: { key }, select: experimentSelect });
}

/** Locks the experiment's row until the transaction ends, so two changes of one experiment run one after the other. */
export async function lockExperiment(tx: Tx, key: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id::text AS id FROM "Experiment" WHERE key = ${key} FOR UPDATE`;
  return rows.length === 1;
}

export function findExperimentsByKeys(db: DbOrTx, keys: string[]): Promise<ExperimentRow[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return db.experiment.findMany({ where: { key: { in: keys } }, select: experimentSelect });
}

export function listExperiments(
  db: DbOrTx,
  filter: { playbookId?: string; status?: "draft" | "running" | "stopped" },
): Promise<ExperimentRow[]> {
  return db.experiment.findMany({
    where: { playbookId: filter.playbookId, status: filter.status },
    orderBy: [{ updatedAt: "desc" }, { key: "asc" }],
    select: experimentSelect,
  });
}

export function experimentExists(db: DbOrTx, key: string) {
  return db.experiment.findUnique({ where: { key }, select: { id: true } });
}

export function findPlaybooksByNames(db: DbOrTx, names: string[]) {
  if (names.length === 0) return Promise.resolve([]);
  return db.playbook.findMany({ where: { name: { in: names } }, select: { id: true, name: true, version: true } });
}

export interface NewVariantRow {
  key: string;
  name: string;
  weight: number;
  targetKind: TargetKind;
  playbookVersion: number | null;
  targetPlaybookId: string | null;
}

export interface NewExperimentRow {
  key: string;
  name: string;
  hypothesis: string;
  playbookId: string;
  coverage: number;
  seed: string;
  primaryMetric: string;
  guardrails: string[];
  minimumDetectableEffect: number | null;
  plannedUnitsPerVariant: number | null;
  createdBy: string;
}

export async function insertExperiment(tx: Tx, row: NewExperimentRow, variants: NewVariantRow[]): Promise<string> {
  const created = await tx.experiment.create({
    data: { ...row, status: "draft", variants: { create: variants.map((variant, position) => ({ ...variant, position })) } },
    select: { id: true },
  });
  return created.id;
}

export type ExperimentUpdate = Partial<{
  name: string;
  hypothesis: string;
  status: "draft" | "running" | "stopped";
  coverage: number;
  seed: string;
  guardrails: string[];
  minimumDetectableEffect: number | null;
  plannedUnitsPerVariant: number | null;
  startedAt: Date;
  stoppedAt: Date | null;
  decisionAction: string;
  decisionVariant: string | null;
  decisionNote: string;
  decidedBy: string;
  decidedAt: Date;
  decisionRollbackVersion: number | null;
}>;

export async function updateExperiment(tx: Tx, id: string, data: ExperimentUpdate): Promise<void> {
  // updatedAt moves even when only variants or phases changed, so lists show the latest change first.
  await tx.experiment.update({ where: { id }, data: { ...data, updatedAt: new Date() }, select: { id: true } });
}

/** Before the first start: the variants are replaced as a whole. */
export async function replaceVariants(tx: Tx, experimentId: string, variants: NewVariantRow[]): Promise<void> {
  await tx.experimentVariant.deleteMany({ where: { experimentId } });
  await tx.experimentVariant.createMany({ data: variants.map((variant, position) => ({ ...variant, experimentId, position })) });
}

export async function updateVariantWeights(
  tx: Tx,
  experimentId: string,
  weights: { key: string; weight: number; name: string }[],
): Promise<void> {
  for (const { key, weight, name } of weights) {
    await tx.experimentVariant.update({ where: { experimentId_key: { experimentId, key } }, data: { weight, name }, select: { id: true } });
  }
}

export async function insertPhase(
  tx: Tx,
  row: { experimentId: string; number: number; seed: string; coverage: number; weights: number[]; startedAt: Date },
): Promise<void> {
  await tx.experimentPhase.create({ data: row, select: { id: true } });
}

export async function endPhase(tx: Tx, experimentId: string, number: number, endedAt: Date): Promise<void> {
  await tx.experimentPhase.updateMany({ where: { experimentId, number, endedAt: null }, data: { endedAt } });
}

// ---- Exposures ------------------------------------------------------------------------------

export interface ExposureRow {
  variant: string;
  created: boolean;
  playbookVersion: number | null;
}

/**
 * Records a unit's first exposure in a phase, or finds the one recorded before (the unit keeps the
 * variant of its first exposure). One statement in the common cases; a concurrent first exposure
 * of the same unit is found by the second read.
 */
export async function recordExposure(
  db: DbOrTx,
  row: { experimentId: string; phase: number; unitId: string; variant: string; playbookVersion: number | null },
): Promise<ExposureRow> {
  const [inserted] = await db.$queryRaw<ExposureRow[]>`
    INSERT INTO "ExperimentExposure" ("experimentId", phase, "unitId", variant, "playbookVersion", "firstSeenAt")
    VALUES (${row.experimentId}::uuid, ${row.phase}, ${row.unitId}, ${row.variant}, ${row.playbookVersion}, now() AT TIME ZONE 'UTC')
    ON CONFLICT ("experimentId", phase, "unitId") DO NOTHING
    RETURNING variant, true AS created, "playbookVersion"`;
  if (inserted) return inserted;
  const existing = await findExposure(db, row.experimentId, row.phase, row.unitId);
  if (!existing) throw new Error(`The exposure of unit "${row.unitId}" was neither recorded nor found.`);
  return existing;
}

export async function findExposure(db: DbOrTx, experimentId: string, phase: number, unitId: string): Promise<ExposureRow | null> {
  const [row] = await db.$queryRaw<ExposureRow[]>`
    SELECT variant, false AS created, "playbookVersion" FROM "ExperimentExposure"
    WHERE "experimentId" = ${experimentId}::uuid AND phase = ${phase} AND "unitId" = ${unitId}`;
  return row ?? null;
}

/** The recorded variants of these units in a phase. */
export function findExposures(
  db: DbOrTx,
  experimentId: string,
  phase: number,
  unitIds: string[],
): Promise<{ unitId: string; variant: string }[]> {
  if (unitIds.length === 0) return Promise.resolve([]);
  return db.$queryRaw`
    SELECT "unitId", variant FROM "ExperimentExposure"
    WHERE "experimentId" = ${experimentId}::uuid AND phase = ${phase} AND "unitId" = ANY(${unitIds}::text[])`;
}

// ---- Results --------------------------------------------------------------------------------

export interface ResultScope {
  experimentId: string;
  phase: number;
}

/**
 * The sums over a phase's units per variant, playbook version served (null: not known) and UTC day
 * of first exposure, crossovers apart: the rows triggers keep in "ExperimentTally", so reading them
 * costs the same for 200 traces as for 200,000.
 */
export interface TallyRow {
  variant: string;
  playbookVersion: number | null;
  day: string;
  units: number;
  crossovers: number;
  withoutUnit: number;
  decidedUnits: number;
  multiTraceUnits: number;
  traces: number;
  success: number;
  failure: number;
  unknown: number;
  costN: number;
  costSum: number;
  costSq: number;
  tokensN: number;
  tokensSum: number;
  tokensSq: number;
  durationN: number;
  durationSum: number;
  durationSq: number;
  successSq: number;
  decidedSq: number;
  successDecided: number;
}

export function tallies(db: DbOrTx, scope: ResultScope): Promise<TallyRow[]> {
  return db.$queryRaw<TallyRow[]>`
    SELECT variant, NULLIF("playbookVersion", -1) AS "playbookVersion", to_char(day, 'YYYY-MM-DD') AS day,
      units, crossovers, "withoutUnit", "decidedUnits", "multiTraceUnits", traces, success, failure, unknown,
      "costN", "costSum", "costSq", "tokensN", "tokensSum", "tokensSq", "durationN", "durationSum", "durationSq",
      "successSq", "decidedSq", "successDecided"
    FROM "ExperimentTally"
    WHERE "experimentId" = ${scope.experimentId}::uuid AND phase = ${scope.phase}
      AND (units <> 0 OR crossovers <> 0)
    ORDER BY day, variant, "playbookVersion"`;
}

export interface PairedCounts {
  variant: string;
  tasks: number;
  bothSuccess: number;
  onlyControl: number;
  onlyVariant: number;
  bothFail: number;
}

/**
 * Paired evaluation on one task set: each task's first decided trace under the control against its
 * first under each variant, as the cells triggers keep in "ExperimentPaired". Every trace of the
 * phase with a taskId counts, crossover units' included: running one task under both is what a
 * paired run does.
 */
export function pairedCounts(db: DbOrTx, scope: ResultScope): Promise<PairedCounts[]> {
  return db.$queryRaw<PairedCounts[]>`
    SELECT variant, tasks, "bothSuccess", "onlyControl", "onlyVariant", "bothFail"
    FROM "ExperimentPaired"
    WHERE "experimentId" = ${scope.experimentId}::uuid AND phase = ${scope.phase} AND tasks <> 0`;
}
