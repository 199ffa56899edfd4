// How an experiment reads from the outside: its definition (what a GrowthBook SDK needs included),
// its phases and its decision, built from the stored rows. Shared by the service and the results.
import type * as repo from "./repository";
import type { Decision, ExperimentDefinition, Guardrail, PhaseView, VariantTarget, VariantView } from "./schemas";

/** The phase units are assigned in now (running) or were last (stopped); null before the first start. */
export function currentPhase(row: Pick<repo.ExperimentRow, "phases">): repo.ExperimentRow["phases"][number] | null {
  return row.phases.at(-1) ?? null;
}

export function targetOf(variant: repo.ExperimentRow["variants"][number]): VariantTarget {
  switch (variant.targetKind) {
    case "version":
      return { kind: "version", playbookVersion: variant.playbookVersion ?? 0 };
    case "noPlaybook":
      return { kind: "noPlaybook" };
    case "playbook":
      return { kind: "playbook", playbook: variant.targetPlaybook?.name ?? null, playbookId: variant.targetPlaybookId };
    default:
      return { kind: "latest" };
  }
}

function variantViewOf(variant: repo.ExperimentRow["variants"][number]): VariantView {
  const target = targetOf(variant);
  const words =
    target.kind === "version"
      ? { playbookVersion: target.playbookVersion }
      : target.kind === "noPlaybook"
        ? { noPlaybook: true as const }
        : target.kind === "playbook"
          ? target.playbook === null
            ? {}
            : { playbook: target.playbook }
          : { latest: true as const };
  return { key: variant.key, name: variant.name, weight: variant.weight, target, ...words };
}

export function phaseViewOf(phase: repo.ExperimentRow["phases"][number]): PhaseView {
  return {
    number: phase.number,
    seed: phase.seed,
    coverage: phase.coverage,
    weights: phase.weights,
    startedAt: phase.startedAt.toISOString(),
    endedAt: phase.endedAt?.toISOString() ?? null,
  };
}

export function decisionOf(row: repo.ExperimentRow): Decision | null {
  if (!row.decisionAction || !row.decidedAt) return null;
  return {
    action: row.decisionAction === "ship" ? "ship" : "stop",
    variant: row.decisionVariant,
    note: row.decisionNote ?? "",
    by: row.decidedBy ?? "",
    at: row.decidedAt.toISOString(),
    rolledBackToVersion: row.decisionRollbackVersion,
  };
}

export function definitionOf(row: repo.ExperimentRow): ExperimentDefinition {
  const phase = currentPhase(row);
  const seed = phase?.seed ?? row.seed;
  const variations = row.variants.map((variant) => variant.key);
  const weights = row.variants.map((variant) => variant.weight);
  return {
    key: row.key,
    name: row.name,
    hypothesis: row.hypothesis,
    playbook: row.playbook.name,
    playbookId: row.playbookId,
    status: row.status,
    control: variations[0] ?? "",
    variants: row.variants.map(variantViewOf),
    coverage: row.coverage,
    seed,
    hashVersion: 2,
    hashAttribute: "id",
    weights,
    variations,
    phase: phase ? phaseViewOf(phase) : null,
    phases: row.phases.map(phaseViewOf),
    growthbook: {
      key: row.key,
      seed,
      hashVersion: 2,
      hashAttribute: "id",
      variations,
      weights,
      coverage: row.coverage,
      phase: phase ? String(phase.number) : null,
    },
    primaryMetric: "successRate",
    guardrails: row.guardrails.filter((g): g is Guardrail => g === "costUsd" || g === "tokens" || g === "durationMs"),
    minimumDetectableEffect: row.minimumDetectableEffect,
    plannedUnitsPerVariant: row.plannedUnitsPerVariant,
    startedAt: row.startedAt?.toISOString() ?? null,
    stoppedAt: row.stoppedAt?.toISOString() ?? null,
    archivedAt: row.archivedAt?.toISOString() ?? null,
    decision: decisionOf(row),
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
