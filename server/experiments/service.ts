// Experiment rules: read, create and change experiments (phases when a running one is re-weighted),
// decide (ship, with the rollback a pinned older version asks for; stop), archive. Every change is
// written with its audit entry in one transaction. Assigning units is assignment.ts.
import { visibleTo, type PlaybookScope } from "@/server/access/restriction";
import { createHash } from "node:crypto";
import type { z } from "zod";
import { sampleSizePerVariant } from "@/server/ace/stats";
import { recordAudit, type Who } from "@/server/audit/record";
import type { AuditAction } from "@/server/audit/schemas";
import { Prisma, type Db, type DbOrTx, type Tx } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { rollback } from "@/server/history/service";
import { forgetDefinition } from "./definitions";
import * as repo from "./repository";
import { computeResults, listItemOf } from "./results";
import { currentPhase, decisionOf, definitionOf, targetOf } from "./views";
import {
  type createExperimentInput,
  type decideInput,
  type DecisionResult,
  type ExperimentDefinition,
  type ExperimentListItem,
  type ExperimentResults,
  type ExperimentStatus,
  type listExperimentsInput,
  type sampleSizeInput,
  type updateExperimentFields,
  type VariantTarget,
  type variantInputSchema,
} from "./schemas";

/** Who changes an experiment: the author name (history, decisions) and the audit source. */
export type Actor = Who;

/** An API key restricted to some playbooks refuses (403) before anything is read or written. */
export interface AccessOptions {
  allowPlaybooks?: (names: readonly string[]) => Promise<void>;
}

const TRANSACTION = { maxWait: 10_000, timeout: 30_000 } as const;

type VariantInput = z.output<typeof variantInputSchema>;

// ---- Reading --------------------------------------------------------------------------------

export function unknownExperiment(key: string): AppError {
  return new AppError(
    "NOT_FOUND",
    `No experiment has the key "${key}". Keys are case-sensitive slugs; list them on the Experiments page.`,
    {
      details: { experiment: key },
    },
  );
}

export async function loadExperiment(db: DbOrTx, key: string, options: AccessOptions = {}): Promise<repo.ExperimentRow> {
  const row = await repo.findExperimentByKey(db, key);
  if (!row) throw unknownExperiment(key);
  await options.allowPlaybooks?.(playbookNamesOf(row));
  return row;
}

export function playbookNamesOf(row: repo.ExperimentRow): string[] {
  const names = [row.playbook.name];
  for (const variant of row.variants) if (variant.targetPlaybook) names.push(variant.targetPlaybook.name);
  return [...new Set(names)];
}

export async function getExperiment(db: Db, key: string, options: AccessOptions = {}): Promise<ExperimentDefinition> {
  return definitionOf(await loadExperiment(db, key, options));
}

export async function listExperiments(
  db: Db,
  filter: z.output<typeof listExperimentsInput>,
  scope: PlaybookScope = "all",
): Promise<ExperimentListItem[]> {
  const rows = visibleTo(scope, await repo.listExperiments(db, filter), (row) => row.playbookId);
  const items: ExperimentListItem[] = [];
  // One at a time: on the embedded engine queries queue anyway, and a studio runs a handful of experiments.
  for (const row of rows) items.push(listItemOf(row, currentPhase(row) ? await computeResults(db, row) : null));
  return items;
}

export async function experimentResults(
  db: Db,
  key: string,
  phase: number | undefined,
  options: AccessOptions = {},
): Promise<ExperimentResults> {
  const row = await loadExperiment(db, key, options);
  if (phase !== undefined && !row.phases.some((p) => p.number === phase)) {
    const count = row.phases.length;
    throw new AppError(
      "NOT_FOUND",
      `Experiment "${key}" has no phase ${phase}; it has ${count === 0 ? "none yet (it never started)" : `phases 1 to ${count}`}.`,
      {
        details: { field: "phase" },
      },
    );
  }
  return computeResults(db, row, phase);
}

export function sampleSize(input: z.output<typeof sampleSizeInput>): { unitsPerVariant: number } {
  if (input.baseline + input.mde > 1) {
    throw new AppError("INVALID_INPUT", `baseline + mde is above 1 (${input.baseline} + ${input.mde}): a success rate cannot exceed 1.`, {
      details: { field: "mde" },
    });
  }
  return { unitsPerVariant: sampleSizePerVariant({ baseline: input.baseline, mde: input.mde, alpha: input.alpha, power: input.power }) };
}

// ---- Creating and changing ------------------------------------------------------------------

function fieldError(field: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError("INVALID_INPUT", `${field}: ${message}`, { details: { field, ...details } });
}

/** The seed of phase n: the experiment's seed for the first, a derived one after (units are re-randomised). */
export function phaseSeed(seed: string, number: number): string {
  return number === 1 ? seed : `${seed}-phase${number}`;
}

function equalWeights(count: number): number[] {
  return Array.from({ length: count }, () => 1 / count);
}

/** Variant rows from the body: targets resolved (versions that exist, other playbooks by name), weights filled in. */
async function resolveVariants(
  tx: DbOrTx,
  playbook: { id: string; name: string; version: number },
  variants: readonly VariantInput[],
): Promise<repo.NewVariantRow[]> {
  const otherNames = [...new Set(variants.flatMap((variant) => (variant.playbook === undefined ? [] : [variant.playbook])))];
  const others = new Map((await repo.findPlaybooksByNames(tx, otherNames)).map((row) => [row.name, row]));
  const weights = variants.every((variant) => variant.weight === undefined)
    ? equalWeights(variants.length)
    : variants.map((v) => v.weight ?? 0);
  return variants.map((variant, index): repo.NewVariantRow => {
    const base = {
      key: variant.key,
      name: variant.name ?? variant.key,
      weight: weights[index] as number,
      playbookVersion: null,
      targetPlaybookId: null,
    };
    if (variant.playbookVersion !== undefined) {
      if (variant.playbookVersion > playbook.version) {
        throw fieldError(
          `variants.${index}.playbookVersion`,
          `version ${variant.playbookVersion} of "${playbook.name}" does not exist; the playbook is at version ${playbook.version}.`,
        );
      }
      return { ...base, targetKind: "version", playbookVersion: variant.playbookVersion };
    }
    if (variant.noPlaybook) return { ...base, targetKind: "noPlaybook" };
    if (variant.playbook !== undefined) {
      const other = others.get(variant.playbook);
      if (!other) throw fieldError(`variants.${index}.playbook`, `no playbook is named "${variant.playbook}" (names are case-sensitive).`);
      return { ...base, targetKind: "playbook", targetPlaybookId: other.id };
    }
    return { ...base, targetKind: "latest" };
  });
}

function sameTarget(row: repo.ExperimentRow["variants"][number], next: repo.NewVariantRow): boolean {
  return (
    row.targetKind === next.targetKind && row.playbookVersion === next.playbookVersion && row.targetPlaybookId === next.targetPlaybookId
  );
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

function duplicateKey(key: string): AppError {
  return new AppError(
    "CONFLICT",
    `An experiment with the key "${key}" already exists. Choose another key, or change that one with PATCH.`,
    {
      details: { field: "key", experiment: key },
    },
  );
}

async function startPhase(
  tx: Tx,
  row: { id: string; seed: string },
  number: number,
  coverage: number,
  weights: number[],
  at: Date,
): Promise<void> {
  await repo.insertPhase(tx, { experimentId: row.id, number, seed: phaseSeed(row.seed, number), coverage, weights, startedAt: at });
}

/** What the audit entry shows of an experiment before and after a change. */
function auditSummary(row: repo.ExperimentRow) {
  return {
    key: row.key,
    name: row.name,
    status: row.status,
    coverage: row.coverage,
    phase: currentPhase(row)?.number ?? null,
    variants: row.variants.map((variant) => ({ key: variant.key, weight: variant.weight, target: targetOf(variant) })),
    decision: decisionOf(row),
    archivedAt: row.archivedAt,
  };
}

async function audit(tx: Tx, who: Actor, action: AuditAction, before: repo.ExperimentRow | null, after: repo.ExperimentRow): Promise<void> {
  await recordAudit(tx, who.audit, {
    action,
    target: { type: "experiment", id: after.id, label: after.key },
    playbookId: after.playbookId,
    before: before ? auditSummary(before) : null,
    after: auditSummary(after),
  });
}

export async function createExperiment(
  db: Db,
  who: Actor,
  input: z.output<typeof createExperimentInput>,
  options: AccessOptions = {},
): Promise<ExperimentDefinition> {
  if (input.status === "stopped") throw fieldError("status", 'a new experiment starts as "draft" or "running".');
  const otherPlaybooks = input.variants.flatMap((variant) => (variant.playbook === undefined ? [] : [variant.playbook]));
  await options.allowPlaybooks?.([...new Set([input.playbook, ...otherPlaybooks])]);
  forgetDefinition(db, input.key);
  try {
    return await db.$transaction(async (tx) => {
      if (await repo.experimentExists(tx, input.key)) throw duplicateKey(input.key);
      const [playbook] = await repo.findPlaybooksByNames(tx, [input.playbook]);
      if (!playbook) throw fieldError("playbook", `no playbook is named "${input.playbook}" (names are case-sensitive).`);
      const variants = await resolveVariants(tx, playbook, input.variants);
      const seed = input.seed ?? input.key;
      const id = await repo.insertExperiment(
        tx,
        {
          key: input.key,
          name: input.name ?? input.key,
          hypothesis: input.hypothesis,
          playbookId: playbook.id,
          coverage: input.coverage,
          seed,
          primaryMetric: input.primaryMetric,
          guardrails: [...new Set(input.guardrails)],
          minimumDetectableEffect: input.minimumDetectableEffect ?? null,
          plannedUnitsPerVariant: input.plannedUnitsPerVariant ?? null,
          createdBy: who.actor,
        },
        variants,
      );
      if (input.status === "running") {
        const now = new Date();
        await startPhase(
          tx,
          { id, seed },
          1,
          input.coverage,
          variants.map((v) => v.weight),
          now,
        );
        await repo.updateExperiment(tx, id, { status: "running", startedAt: now });
      }
      const created = await loadExperiment(tx, input.key);
      await audit(tx, who, "experiment.create", null, created);
      return definitionOf(created);
    }, TRANSACTION);
  } catch (error) {
    // Two creations of one key at once: the unique index lets one in.
    if (isUniqueViolation(error)) throw duplicateKey(input.key);
    throw error;
  }
}

type UpdateFields = z.output<typeof updateExperimentFields>;

function weightsChanged(before: readonly number[], after: readonly number[]): boolean {
  return before.length !== after.length || before.some((weight, index) => Math.abs(weight - (after[index] as number)) > 1e-12);
}

export async function updateExperiment(
  db: Db,
  who: Actor,
  key: string,
  patch: UpdateFields,
  options: AccessOptions = {},
): Promise<ExperimentDefinition> {
  // The access check reads on the outer client, so it runs before the transaction: inside it, the
  // embedded database's one connection would wait for the transaction that waits for the check.
  await loadExperiment(db, key, options);
  const targets = (patch.variants ?? []).flatMap((variant) => (variant.playbook === undefined ? [] : [variant.playbook]));
  if (targets.length > 0) await options.allowPlaybooks?.([...new Set(targets)]);
  const updated = await db.$transaction(async (tx) => {
    if (!(await repo.lockExperiment(tx, key))) throw unknownExperiment(key);
    const before = await loadExperiment(tx, key);
    const phase = currentPhase(before);
    const started = phase !== null;
    const now = new Date();

    let variants: repo.NewVariantRow[] | null = null;
    if (patch.variants !== undefined) {
      const playbook = { id: before.playbookId, name: before.playbook.name, version: before.playbook.version };
      variants = await resolveVariants(tx, playbook, patch.variants);
      if (started) {
        const sameShape =
          variants.length === before.variants.length &&
          variants.every((variant, index) => {
            const old = before.variants[index];
            return old !== undefined && old.key === variant.key && sameTarget(old, variant);
          });
        if (!sameShape) {
          throw fieldError(
            "variants",
            "once an experiment has started, only the variants' weights and names may change (same keys, same order, same targets). " +
              "Stop it and create a new experiment to test other variants.",
          );
        }
      }
    }
    if (patch.seed !== undefined && patch.seed !== before.seed && started) {
      throw fieldError("seed", "the seed cannot change once the experiment has started; a new phase derives a new seed by itself.");
    }

    const nextStatus: ExperimentStatus = patch.status ?? before.status;
    if (nextStatus === "draft" && before.status !== "draft") {
      throw fieldError("status", `a ${before.status} experiment cannot go back to draft.`);
    }
    if (before.status === "stopped" && nextStatus === "running" && before.decisionAction === "ship") {
      throw fieldError(
        "status",
        `variant "${before.decisionVariant}" was shipped: a decided experiment stays stopped. Create a new experiment to test again.`,
      );
    }

    const beforeWeights = before.variants.map((variant) => variant.weight);
    const nextWeights = variants ? variants.map((variant) => variant.weight) : beforeWeights;
    const nextCoverage = patch.coverage ?? before.coverage;
    const reweighted = weightsChanged(beforeWeights, nextWeights) || Math.abs(nextCoverage - before.coverage) > 1e-12;
    const restarting = before.status === "stopped" && nextStatus === "running";
    if (restarting && before.archivedAt) {
      throw fieldError(
        "status",
        `experiment "${key}" is archived: its traces may have expired, so it cannot run again. Create a new experiment instead.`,
      );
    }
    const newPhase = (before.status === "running" && nextStatus === "running" && reweighted) || restarting;
    if (newPhase && patch.confirmNewPhase !== true) {
      const next = (phase?.number ?? 0) + 1;
      const why = restarting ? "Restarting a stopped experiment" : "Changing the weights or coverage of a running experiment";
      throw fieldError(
        "confirmNewPhase",
        `${why} starts phase ${next} with a new seed: units are randomised again and phase ${next} is analysed on its own, never pooled ` +
          "with the earlier phases. Send confirmNewPhase: true to go ahead.",
        { nextPhase: next },
      );
    }

    const update: repo.ExperimentUpdate = {};
    if (patch.name !== undefined) update.name = patch.name;
    if (patch.hypothesis !== undefined) update.hypothesis = patch.hypothesis;
    if (patch.coverage !== undefined) update.coverage = patch.coverage;
    if (patch.seed !== undefined) update.seed = patch.seed;
    if (patch.guardrails !== undefined) update.guardrails = [...new Set(patch.guardrails)];
    if (patch.minimumDetectableEffect !== undefined) update.minimumDetectableEffect = patch.minimumDetectableEffect;
    if (patch.plannedUnitsPerVariant !== undefined) update.plannedUnitsPerVariant = patch.plannedUnitsPerVariant;

    if (variants) {
      if (started)
        await repo.updateVariantWeights(
          tx,
          before.id,
          variants.map(({ key: k, weight, name }) => ({ key: k, weight, name })),
        );
      else await repo.replaceVariants(tx, before.id, variants);
    }

    let action: AuditAction = "experiment.update";
    const seed = patch.seed ?? before.seed;
    if (before.status === "draft" && nextStatus === "running") {
      await startPhase(tx, { id: before.id, seed }, 1, nextCoverage, nextWeights, now);
      Object.assign(update, { status: "running", startedAt: now, stoppedAt: null });
      action = "experiment.start";
    } else if (nextStatus === "stopped" && before.status !== "stopped") {
      if (phase) await repo.endPhase(tx, before.id, phase.number, now);
      Object.assign(update, { status: "stopped", stoppedAt: now });
      action = "experiment.stop";
    } else if (newPhase) {
      const next = (phase?.number ?? 0) + 1;
      if (phase && phase.endedAt === null) await repo.endPhase(tx, before.id, phase.number, now);
      await startPhase(tx, { id: before.id, seed }, next, nextCoverage, nextWeights, now);
      Object.assign(update, { status: "running", stoppedAt: null });
      action = restarting ? "experiment.restart" : "experiment.phase";
    }
    await repo.updateExperiment(tx, before.id, update);
    const after = await loadExperiment(tx, key);
    await audit(tx, who, action, before, after);
    return definitionOf(after);
  }, TRANSACTION);
  // After the commit, so a request that read the old definition meanwhile does not keep it.
  forgetDefinition(db, key);
  return updated;
}

// ---- Decisions ------------------------------------------------------------------------------

export async function decide(
  db: Db,
  who: Actor,
  input: z.output<typeof decideInput>,
  options: AccessOptions = {},
): Promise<DecisionResult> {
  const row = await loadExperiment(db, input.key, options);
  if (row.status === "draft" && input.action === "ship") {
    throw fieldError("action", `experiment "${row.key}" never ran: there is nothing to ship. Start it first, or stop it to close it.`);
  }
  if (input.action === "stop" && row.status === "stopped") {
    throw fieldError("action", `experiment "${row.key}" is already stopped.`);
  }

  let offer: DecisionResult["rollbackOffer"] = null;
  let performed: DecisionResult["rollback"] = null;
  if (input.action === "ship") {
    const variant = row.variants.find((v) => v.key === input.variant);
    if (!variant) {
      throw fieldError(
        "variant",
        `"${input.variant}" is not a variant of experiment "${row.key}" (its variants: ${row.variants.map((v) => v.key).join(", ")}).`,
      );
    }
    const pinned = variant.targetKind === "version" ? variant.playbookVersion : null;
    if (pinned !== null && pinned < row.playbook.version) offer = { playbookVersion: pinned, currentVersion: row.playbook.version };
    if (input.rollback) {
      if (!offer) {
        throw fieldError(
          "rollback",
          `variant "${variant.key}" does not pin an older version of "${row.playbook.name}" (it serves ${describeTarget(targetOf(variant))}): there is nothing to roll back to.`,
        );
      }
      // The rollback is its own versioned change (a delta with its history); the decision is written
      // after it succeeds, so a refused rollback leaves no decision behind.
      const result = await rollback(db, who, {
        playbookId: row.playbookId,
        version: offer.playbookVersion,
        reason: `experiment "${row.key}" shipped variant "${variant.key}"${input.note ? `: ${input.note}` : ""}`,
        expectedVersion: offer.currentVersion,
      });
      performed = { version: result.version, rolledBackTo: result.rolledBackTo, deltaId: result.deltaId, message: result.message };
      offer = null;
    }
  }

  const after = await db.$transaction(async (tx) => {
    if (!(await repo.lockExperiment(tx, input.key))) throw unknownExperiment(input.key);
    const before = await loadExperiment(tx, input.key);
    const now = new Date();
    const phase = currentPhase(before);
    const update: repo.ExperimentUpdate = {
      decisionAction: input.action,
      decisionVariant: input.action === "ship" ? input.variant : null,
      decisionNote: input.note,
      decidedBy: who.actor,
      decidedAt: now,
      decisionRollbackVersion:
        performed?.rolledBackTo ??
        (input.action === "ship" && before.decisionVariant === input.variant ? before.decisionRollbackVersion : null),
    };
    if (before.status !== "stopped") {
      if (phase && phase.endedAt === null) await repo.endPhase(tx, before.id, phase.number, now);
      Object.assign(update, { status: "stopped", stoppedAt: now });
    }
    await repo.updateExperiment(tx, before.id, update);
    const updated = await loadExperiment(tx, input.key);
    await audit(tx, who, input.action === "ship" ? "experiment.ship" : "experiment.stop", before, updated);
    return updated;
  }, TRANSACTION);
  forgetDefinition(db, input.key);

  const message =
    input.action === "stop"
      ? `Experiment "${after.key}" is stopped: units are no longer assigned (reason "stopped").`
      : performed
        ? `Shipped variant "${input.variant}" and ${performed.message.charAt(0).toLowerCase()}${performed.message.slice(1)}`
        : offer
          ? `Shipped variant "${input.variant}". It pins version ${offer.playbookVersion} of "${after.playbook.name}" (now at ${offer.currentVersion}): ship again with rollback to roll the playbook back to it.`
          : `Shipped variant "${input.variant}"; the experiment is stopped.`;
  return { experiment: definitionOf(after), rollback: performed, rollbackOffer: offer, message };
}

/**
 * Archives a stopped experiment: from then on retention may remove its traces and exposures once
 * they are older than the playbook's trace retention. Its results stay as they are (the tallies).
 */
export async function archiveExperiment(db: Db, who: Actor, key: string, options: AccessOptions = {}): Promise<ExperimentDefinition> {
  await loadExperiment(db, key, options);
  const after = await db.$transaction(async (tx) => {
    if (!(await repo.lockExperiment(tx, key))) throw unknownExperiment(key);
    const before = await loadExperiment(tx, key);
    if (before.status !== "stopped") {
      throw fieldError("key", `experiment "${key}" is ${before.status}: stop it (or ship a variant) before archiving it.`);
    }
    if (before.archivedAt) throw fieldError("key", `experiment "${key}" is already archived.`);
    await repo.updateExperiment(tx, before.id, { archivedAt: new Date() });
    const updated = await loadExperiment(tx, key);
    await audit(tx, who, "experiment.archive", before, updated);
    return updated;
  }, TRANSACTION);
  forgetDefinition(db, key);
  return definitionOf(after);
}

function describeTarget(target: VariantTarget): string {
  switch (target.kind) {
    case "version":
      return `version ${target.playbookVersion}`;
    case "noPlaybook":
      return "no playbook";
    case "playbook":
      return `the playbook "${target.playbook ?? "(deleted)"}"`;
    default:
      return "the latest version";
  }
}

/** A short, stable tag of anything, for ETags built from several parts. */
export function tagOf(parts: readonly unknown[]): string {
  return `"${createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 27)}"`;
}
