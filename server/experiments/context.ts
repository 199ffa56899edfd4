// The compiled context of the variant a unit is assigned:
// GET /api/v1/playbooks/{name}/context?experiment=<key>&unitId=<id>. Serving it records the unit's
// exposure like an assignment. Each variant's answer has its own ETag, so an agent that switches
// variant (a new phase) never keeps the other variant's copy.
import { z } from "zod";
import { approximateBytes, createByteBoundedCache, MEGABYTE } from "@/server/cache/lru";
import type { ContextResult } from "@/server/context/schemas";
import {
  compileServedContext,
  compileTarget,
  contextEtag,
  resolveContextTarget,
  type ContextRequest,
  type ContextTarget,
} from "@/server/context/service";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { playbookAt } from "@/server/history/service";
import { experimentKeySchema, unitIdSchema, type AssignmentResult } from "./schemas";
import { assignLoaded } from "./assignment";
import { loadExperiment, tagOf, type AccessOptions } from "./service";

export interface ExperimentContextQuery {
  experiment: string;
  unitId: string;
}

const experimentContextQuery = z.object({
  experiment: experimentKeySchema.describe("Serve the context of the variant this experiment assigns to unitId (and record the exposure)."),
  unitId: unitIdSchema,
});

/** `experiment` and `unitId` from the query: both or neither. */
export function parseExperimentContextQuery(params: URLSearchParams): ExperimentContextQuery | null {
  const experiment = params.get("experiment") ?? undefined;
  const unitId = params.get("unitId") ?? undefined;
  if (experiment === undefined && unitId === undefined) return null;
  if (experiment === undefined) {
    throw new AppError(
      "INVALID_INPUT",
      "experiment: unitId was sent without experiment. Send both to get the unit's variant, or neither.",
      {
        details: { field: "experiment" },
      },
    );
  }
  if (unitId === undefined) {
    throw new AppError("INVALID_INPUT", `unitId: experiment "${experiment}" needs the unitId of the agent, user or task to assign.`, {
      details: { field: "unitId" },
    });
  }
  return experimentContextQuery.parse({ experiment, unitId });
}

export interface VariantContext {
  assignment: AssignmentResult;
  /** The ETag of the answer as far as it is known before compiling: enough for a 304. */
  etag: string;
  compile(): Promise<{ result: ContextResult; etag: string }>;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Pinned versions never change: their compiled contexts are kept by ETag like the current ones. */
const pinnedCache = createByteBoundedCache<string, ContextResult>({
  maxBytes: 16 * MEGABYTE,
  sizeOf: (result) => approximateBytes(result),
});

async function compilePinned(db: Db, target: ContextTarget): Promise<ContextResult> {
  const cached = pinnedCache.get(target.etag);
  if (cached) return cached;
  const past = await playbookAt(db, { playbookId: target.playbookId, version: target.version, includeArchived: false });
  const sections = past.sections.map((section) => ({
    name: section.name,
    bullets: section.bullets.filter((bullet) => bullet.status === "active"),
  }));
  const compiled = compileServedContext(sections, { tokenBudget: target.budget, includeCounters: target.includeCounters });
  const bulletCount = sections.reduce((sum, section) => sum + section.bullets.length, 0);
  const result: ContextResult = {
    playbook: target.name,
    version: target.version,
    tokens: compiled.tokens,
    budget: target.budget,
    bulletCount,
    includedBullets: compiled.includedBullets.length,
    omittedBullets: bulletCount - compiled.includedBullets.length,
    context: compiled.text,
  };
  pinnedCache.set(target.etag, result);
  return result;
}

/**
 * Assigns the unit (recording its first exposure) and resolves what its variant serves: the
 * playbook pinned at a version, its latest version, another playbook, or an empty context
 * (noPlaybook: version 0, no bullets). A unit outside the experiment gets the playbook's latest.
 */
export async function resolveVariantContext(
  db: Db,
  playbookName: string,
  query: ExperimentContextQuery,
  request: ContextRequest,
  options: AccessOptions = {},
): Promise<VariantContext> {
  const experiment = await loadExperiment(db, query.experiment, options);
  const ownName = experiment.playbook.name;
  if (ownName !== playbookName && ownName !== safeDecode(playbookName)) {
    throw new AppError(
      "INVALID_INPUT",
      `experiment: "${experiment.key}" runs on the playbook "${ownName}", not "${safeDecode(playbookName)}". Fetch /api/v1/playbooks/${encodeURIComponent(ownName)}/context instead.`,
      { details: { field: "experiment", playbook: ownName } },
    );
  }
  const assignment = await assignLoaded(db, experiment, query.unitId);
  const variantTag = (etag: string) => tagOf(["experiment", experiment.key, assignment.variant, etag]);
  const variant = assignment.variant === null ? undefined : experiment.variants.find((v) => v.key === assignment.variant);

  if (variant?.targetKind === "noPlaybook") {
    const budget = (await resolveContextTarget(db, { playbookId: experiment.playbookId }, request)).budget;
    const result: ContextResult = {
      playbook: ownName,
      version: 0,
      tokens: 0,
      budget,
      bulletCount: 0,
      includedBullets: 0,
      omittedBullets: 0,
      context: "",
    };
    const etag = variantTag(`none:${budget}:${request.format}`);
    return { assignment, etag, compile: async () => ({ result, etag }) };
  }

  if (variant?.targetKind === "version" && variant.playbookVersion !== null) {
    const current = await resolveContextTarget(db, { playbookId: experiment.playbookId }, request);
    const { etag: _current, ...fields } = current;
    const pinned = { ...fields, version: variant.playbookVersion };
    const target: ContextTarget = { ...pinned, etag: contextEtag(pinned) };
    const etag = variantTag(target.etag);
    return { assignment, etag, compile: async () => ({ result: await compilePinned(db, target), etag }) };
  }

  let playbookId = experiment.playbookId;
  if (variant?.targetKind === "playbook") {
    if (!variant.targetPlaybookId) {
      throw new AppError(
        "CONFLICT",
        `Variant "${variant.key}" of experiment "${experiment.key}" served a playbook that has since been deleted. Stop the experiment.`,
        {
          details: { experiment: experiment.key, variant: variant.key },
        },
      );
    }
    playbookId = variant.targetPlaybookId;
  }
  const target = await resolveContextTarget(db, { playbookId }, request);
  return {
    assignment,
    etag: variantTag(target.etag),
    compile: async () => {
      const compiled = await compileTarget(db, target);
      return { result: compiled.result, etag: variantTag(compiled.etag) };
    },
  };
}
