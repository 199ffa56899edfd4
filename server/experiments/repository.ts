// Every database call of the experiments domain. Returns plain rows; rules live in service.ts.
// The results read rollups that triggers on "Trace" and "ExperimentExposure" keep exact (migration
// experiment_tallies): per-variant sums over units, so the statistics in server/ace/stats run on a
// few numbers and never on raw traces.
import { Prisma, type DbOrTx, type Tx } from "@/server/db/client";
import type { ExperimentStatus, TargetKind } from "./schemas";

// ---- Definitions ----------------------------------------------------------------------------

export interface ExperimentRow {
  id: string;
  key: string;
  name: string;
  hypothesis: string;
  playbookId: string;
  status: ExperimentStatus;
  coverage: number;
  seed: string;
  primaryMetric: string;
  guardrails: string[];
  minimumDetectableEffect: number | null;
  plannedUnitsPerVariant: number | null;
  startedAt: Date | null;
  stoppedAt: Date | null;
  decisionAction: string | null;
  decisionVariant: string | null;
  decisionNote: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  decisionRollbackVersion: number | null;
  archivedAt: Date | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  /** The experiment's playbook and its current version (what a latest variant serves). */
  playbook: { name: string; version: number };
  /** In order: the control first. */
  variants: {
    key: string;
    name: string;
    weight: number;
    position: number;
    targetKind: TargetKind;
    playbookVersion: number | null;
    targetPlaybookId: string | null;
    targetPlaybook: { name: string; version: number } | null;
  }[];
  /** In order: the current (or last) phase last. */
  phases: { number: number; seed: string; coverage: number; weights: number[]; startedAt: Date; endedAt: Date | null }[];
}

interface StoredPhase {
  number: number;
  seed: string;
  coverage: number;
  weights: number[];
  startedAt: string;
  endedAt: string | null;
}

/** JSON renders a timestamp without time zone as "2026-11-01T09:30:00.123"; the column holds UTC. */
const utc = (text: string) => new Date(`${text}Z`);

/**
 * An experiment with its playbook, variants (their other playbooks) and phases in one statement:
 * assignment reads it on every call, and one round trip costs a fraction of one per relation.
 */
async function selectExperiments(db: DbOrTx, where: Prisma.Sql, orderBy: Prisma.Sql = Prisma.empty): Promise<ExperimentRow[]> {
  const rows = await db.$queryRaw<(Omit<ExperimentRow, "phases"> & { phases: StoredPhase[] })[]>`
    SELECT e.id::text AS id, e.key, e.name, e.hypothesis, e."playbookId"::text AS "playbookId", e.status::text AS status, e.coverage,
      e.seed, e."primaryMetric", e.guardrails, e."minimumDetectableEffect", e."plannedUnitsPerVariant", e."startedAt", e."stoppedAt",
      e."decisionAction", e."decisionVariant", e."decisionNote", e."decidedBy", e."decidedAt", e."decisionRollbackVersion",
      e."archivedAt", e."createdBy", e."createdAt", e."updatedAt",
      json_build_object('name', p.name, 'version', p.version) AS playbook,
      COALESCE((
        SELECT json_agg(json_build_object('key', v.key, 'name', v.name, 'weight', v.weight, 'position', v.position,
          'targetKind', v."targetKind", 'playbookVersion', v."playbookVersion", 'targetPlaybookId', v."targetPlaybookId",
          'targetPlaybook', CASE WHEN t.id IS NULL THEN NULL ELSE json_build_object('name', t.name, 'version', t.version) END)
          ORDER BY v.position)
        FROM "ExperimentVariant" v LEFT JOIN "Playbook" t ON t.id = v."targetPlaybookId"
        WHERE v."experimentId" = e.id), '[]'::json) AS variants,
      COALESCE((
        SELECT json_agg(json_build_object('number', ph.number, 'seed', ph.seed, 'coverage', ph.coverage, 'weights', ph.weights,
          'startedAt', ph."startedAt", 'endedAt', ph."endedAt") ORDER BY ph.number)
        FROM "ExperimentPhase" ph WHERE ph."experimentId" = e.id), '[]'::json) AS phases
    FROM "Experiment" e JOIN "Playbook" p ON p.id = e."playbookId"
    WHERE ${where}
    ${orderBy}`;
  return rows.map((row) => ({
    ...row,
    phases: row.phases.map((phase) => ({
      ...phase,
      startedAt: utc(phase.startedAt),
      endedAt: phase.endedAt === null ? null : utc(phase.endedAt),
    })),
  }));
}

export async function findExperimentByKey(db: DbOrTx, key: string): Promise<ExperimentRow | null> {
  const [row] = await selectExperiments(db, Prisma.sql`e.key = ${key}`);
  return row ?? null;
}

/** Locks the experiment's row until the transaction ends, so two changes of one experiment run one after the other. */
export async function lockExperiment(tx: Tx, key: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id::text AS id FROM "Experiment" WHERE key = ${key} FOR UPDATE`;
  return rows.length === 1;
}

export function findExperimentsByKeys(db: DbOrTx, keys: string[]): Promise<ExperimentRow[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return selectExperiments(db, Prisma.sql`e.key = ANY(${keys}::text[])`);
}

export function listExperiments(db: DbOrTx, filter: { playbookId?: string; status?: ExperimentStatus }): Promise<ExperimentRow[]> {
  const where: Prisma.Sql[] = [Prisma.sql`TRUE`];
  if (filter.playbookId) where.push(Prisma.sql`e."playbookId" = ${filter.playbookId}::uuid`);
  if (filter.status) where.push(Prisma.sql`e.status = ${filter.status}::"ExperimentStatus"`);
  return selectExperiments(db, Prisma.join(where, " AND "), Prisma.sql`ORDER BY e."updatedAt" DESC, e.key`);
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

/** What creating an experiment writes: insertExperiment adds the variants and the status (draft); the rest starts empty. */
export type NewExperimentRow = Pick<
  ExperimentRow,
  | "key"
  | "name"
  | "hypothesis"
  | "playbookId"
  | "coverage"
  | "seed"
  | "primaryMetric"
  | "guardrails"
  | "minimumDetectableEffect"
  | "plannedUnitsPerVariant"
  | "createdBy"
>;

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
  status: ExperimentStatus;
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
  archivedAt: Date;
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
 * variant of its first exposure): one statement either way. A first exposure of the same unit that
 * another transaction is committing at that moment is found by a second read.
 */
export async function recordExposure(
  db: DbOrTx,
  row: { experimentId: string; phase: number; unitId: string; variant: string; playbookVersion: number | null },
): Promise<ExposureRow> {
  const [found] = await db.$queryRaw<ExposureRow[]>`
    WITH inserted AS (
      INSERT INTO "ExperimentExposure" ("experimentId", phase, "unitId", variant, "playbookVersion", "firstSeenAt")
      VALUES (${row.experimentId}::uuid, ${row.phase}, ${row.unitId}, ${row.variant}, ${row.playbookVersion}, now() AT TIME ZONE 'UTC')
      ON CONFLICT ("experimentId", phase, "unitId") DO NOTHING
      RETURNING variant, true AS created, "playbookVersion"
    )
    SELECT variant, created, "playbookVersion" FROM inserted
    UNION ALL
    SELECT variant, false AS created, "playbookVersion" FROM "ExperimentExposure"
    WHERE "experimentId" = ${row.experimentId}::uuid AND phase = ${row.phase} AND "unitId" = ${row.unitId}
      AND NOT EXISTS (SELECT 1 FROM inserted)`;
  if (found) return found;
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
