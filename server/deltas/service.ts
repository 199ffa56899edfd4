// Curation rules: proposals, the approval queue and direct edits. Every change to a playbook goes
// through commitChanges(): one transaction that moves the version on only if it is still the one
// the change was computed from (optimistic concurrency), writes only the changed rows, and records
// the PlaybookVersion and the delta together.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import {
  applyDelta,
  changesCompiledLine,
  createPlaybookState,
  DeltaValidationError,
  resolveSection,
  validateDelta,
  type DeltaOperation,
  type DeltaResult,
  type DeltaValidation,
  type EngineOptions,
  type Finding,
  type PlaybookState,
} from "@/server/ace/delta";
import { operationLabel } from "@/server/ace/delta/messages";
import { diffText } from "@/server/ace/diff";
import type { BulletState, SectionState, VersionChange } from "@/server/ace/history";
import { proposePruning as pruningCandidates } from "@/server/ace/pruning";
import { redoChanges } from "@/server/ace/replay";
import { injectionFindings } from "@/server/ace/safety";
import { buildSimilarityIndex, syncSimilarityIndex, type SimilarityIndex } from "@/server/ace/similarity";
import { countBulletTokens } from "@/server/ace/tokens";
import type { Db, Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import * as playbookRepo from "@/server/playbooks/repository";
import type { PlaybookSettings } from "@/server/playbooks/schemas";
import { readSettings } from "@/server/playbooks/service";
import * as historyRepo from "@/server/history/repository";
import * as repo from "./repository";
import {
  evidenceSchema,
  type approveDeltaInput,
  type BulkResult,
  type bulkDeltaInput,
  type BulletSnapshot,
  type Counters,
  type DeltaEvidence,
  type DeltaListItem,
  type DeltaOrigin,
  type DeltaOutcome,
  type DeltaPage,
  type DeltaStatus,
  type DeltaView,
  type editDeltaInput,
  type listDeltasInput,
  type OperationConflict,
  type OperationPreview,
  type OperationView,
  type proposeDeltaInput,
  type PruningResult,
  type rejectDeltaInput,
  type updateOperationInput,
} from "./schemas";

/** Large applies (a rollback of thousands of bullets) on the embedded engine take seconds. */
const WRITE_TRANSACTION = { maxWait: 15_000, timeout: 120_000 } as const;
/** A change computed on a version someone else moved on from is recomputed this many times. */
const MAX_ATTEMPTS = 4;

// ---- 1. The engine's view of a playbook, cached per (playbook, version) ------------------------
// Loading 10,000 bullets and indexing them for near-duplicates is most of an apply's cost. Every
// write bumps the version, so a state cached under the version read from the database is exact.
// The similarity index is built on first need (the compiled context reads the state and never
// needs it) and is mutable: it is synced forward after a commit, and the entry it belonged to is
// retired, so nobody validates against an index that has moved past their state.

export interface EngineEntry {
  version: number;
  state: PlaybookState;
  /** Near-duplicate index of the state's active bullets; null until first needed (similarityIndexOf). */
  index: SimilarityIndex | null;
  /**
   * Tokens of the active bullets' lines in the compiled playbook (countBulletTokens): the sum of the
   * counts stored with them when loaded, else counted on first need (about 1 s for 10,000 bullets).
   */
  tokens: number | null;
  retired: boolean;
}

const CACHED_PLAYBOOKS = 16;
const globalForCache = globalThis as typeof globalThis & { __aceEngineStates?: WeakMap<Db, Map<string, EngineEntry>> };
const engineStates: WeakMap<Db, Map<string, EngineEntry>> = (globalForCache.__aceEngineStates ??= new WeakMap());

function cacheOf(db: Db): Map<string, EngineEntry> {
  let cache = engineStates.get(db);
  if (!cache) {
    cache = new Map();
    engineStates.set(db, cache);
  }
  return cache;
}

function remember(db: Db, playbookId: string, entry: EngineEntry): void {
  const cache = cacheOf(db);
  const current = cache.get(playbookId);
  if (current && current.version >= entry.version) return;
  if (current) current.retired = true;
  cache.delete(playbookId); // re-insert: the Map's order is the eviction order
  cache.set(playbookId, entry);
  while (cache.size > CACHED_PLAYBOOKS) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

/** For benchmarks that time a first load: drops every cached playbook state of this database. */
export function forgetEngineStates(db: Db): void {
  for (const entry of cacheOf(db).values()) entry.retired = true;
  engineStates.delete(db);
}

export interface Snapshot {
  head: repo.PlaybookHead;
  settings: PlaybookSettings;
  entry: EngineEntry;
}

/** Versions written elsewhere (imports, settings, another server process) are replayed onto the
 *  cached state when they are few and small: their records are exact, and replaying 50 changes is
 *  far cheaper than reloading and re-indexing 10,000 bullets. */
const CATCH_UP_VERSIONS = 20;
const CATCH_UP_CHANGES = 2_000;

async function catchUp(db: Db, head: repo.PlaybookHead, cached: EngineEntry): Promise<EngineEntry | null> {
  if (head.version - cached.version > CATCH_UP_VERSIONS) return null;
  const records = await historyRepo.versionChanges(db, head.id, cached.version, head.version);
  const changes = records.flatMap((record) => record.changes);
  if (records.length !== head.version - cached.version || changes.length > CATCH_UP_CHANGES || cached.retired) return null;
  const replayed = redoChanges(cached.state, changes);
  cached.retired = true;
  if (cached.index) syncSimilarityIndex(cached.index, changes);
  return {
    version: head.version,
    state: { ...replayed, nextIdNumber: Math.max(replayed.nextIdNumber, head.nextBulletNumber) },
    index: cached.index,
    tokens: cached.tokens === null ? null : cached.tokens + tokenDelta(changes),
    retired: false,
  };
}

/** The playbook's current version and engine state. Use `entry` before the next await, or check `retired`. */
export async function loadSnapshot(db: Db, playbookId: string): Promise<Snapshot> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const head = await repo.findPlaybookHead(db, playbookId);
    if (!head) throw notFound("The playbook");
    const settings = readSettings(head.settings);
    const cached = cacheOf(db).get(playbookId);
    if (cached && cached.version === head.version && !cached.retired) return { head, settings, entry: cached };
    if (cached && cached.version < head.version && !cached.retired) {
      const caughtUp = await catchUp(db, head, cached);
      if (caughtUp) {
        remember(db, playbookId, caughtUp);
        return { head, settings, entry: caughtUp };
      }
    }
    const [sections, bullets, stored] = await Promise.all([
      repo.loadSectionStates(db, playbookId),
      playbookRepo.loadBulletStates(db, playbookId),
      playbookRepo.activeTokenTotal(db, playbookId),
    ]);
    // Both reads fell between two reads of the same version, so no change committed in between.
    const after = await repo.currentVersion(db, playbookId);
    if (after?.version !== head.version) continue;
    const entry: EngineEntry = {
      version: head.version,
      state: createPlaybookState(sections, bullets, head.nextBulletNumber),
      index: null,
      tokens: stored.uncounted === 0 ? stored.tokens : null,
      retired: false,
    };
    remember(db, playbookId, entry);
    return { head, settings, entry };
  }
  throw new AppError("BUSY", "The playbook is changing too fast to be read right now. Try again in a moment.");
}

/** A snapshot whose entry is still current at the moment the caller resumes (see loadSnapshot). */
async function freshSnapshot(db: Db, playbookId: string): Promise<Snapshot> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const snapshot = await loadSnapshot(db, playbookId);
    if (!snapshot.entry.retired) return snapshot;
  }
  throw new AppError("BUSY", "The playbook is changing too fast to be read right now. Try again in a moment.");
}

/** The entry's near-duplicate index, built from its state the first time it is asked for. */
export function similarityIndexOf(entry: EngineEntry): SimilarityIndex {
  entry.index ??= buildSimilarityIndex(entry.state.bullets.values());
  return entry.index;
}

function activeTokens(state: PlaybookState): number {
  let total = 0;
  for (const bullet of state.bullets.values()) if (bullet.status === "active") total += countBulletTokens(bullet);
  return total;
}

/** Operations that change content or status make the engine check the token budget. */
function touchesContent(ops: readonly DeltaOperation[]): boolean {
  return ops.some(
    (op) =>
      op.type === "add" ||
      op.type === "merge" ||
      op.type === "remove" ||
      op.type === "restore" ||
      (op.type === "update" && op.content !== undefined),
  );
}

/**
 * `nearDuplicates: false` when a reviewer approves: the proposal already showed its near-duplicates
 * and the reviewer decided, and the search is a third of an apply's time. (A threshold above 1
 * matches nothing; the engine has no switch for it yet.)
 */
export function engineOptions(
  snapshot: Snapshot,
  ops: readonly DeltaOperation[],
  { nearDuplicates = true, similarity }: { nearDuplicates?: boolean; similarity?: SimilarityIndex } = {},
): EngineOptions {
  const { entry, settings } = snapshot;
  if (entry.tokens === null && touchesContent(ops)) entry.tokens = activeTokens(entry.state);
  return {
    maxContentLength: settings.maxContentLength,
    similarityThreshold: nearDuplicates ? settings.similarityThreshold : Number.POSITIVE_INFINITY,
    similarity: similarity ?? similarityIndexOf(entry),
    // Without a count the budget is not checked: nothing in the delta can change the total.
    ...(entry.tokens === null ? {} : { tokenBudget: settings.tokenBudget, stateTokenCount: entry.tokens }),
    newSectionId: randomUUID,
  };
}

function tokenDelta(changes: readonly VersionChange[]): number {
  let delta = 0;
  for (const change of changes) {
    if (change.entity !== "bullet") continue;
    if (change.before && change.after && !changesCompiledLine(change.before, change.after)) continue;
    if (change.before?.status === "active") delta -= countBulletTokens(change.before);
    if (change.after?.status === "active") delta += countBulletTokens(change.after);
  }
  return delta;
}

// ---- 2. Committing a change ---------------------------------------------------------------

/** The version moved on between reading the state and committing: recompute or report a conflict. */
export class VersionMoved extends Error {
  override readonly name = "VersionMoved";
}

export interface Commit {
  playbookId: string;
  snapshot: Snapshot;
  next: PlaybookState;
  changes: VersionChange[];
  author: string;
  reason: string;
  /** Writes the delta's rows inside the transaction and returns its id for the version record. */
  recordDelta: (tx: Tx, version: number) => Promise<string>;
  provenance: (bulletId: string) => repo.NewBulletProvenance;
}

/** One transaction: the version bump first (it serialises writers), then the rows, the version, the delta. */
export async function commitChanges(db: Db, commit: Commit): Promise<number> {
  const { entry } = commit.snapshot;
  const version = entry.version + 1;
  await db.$transaction(async (tx) => {
    const bumped = await playbookRepo.bumpVersion(tx, commit.playbookId, entry.version, {
      nextBulletNumber: commit.next.nextIdNumber,
    });
    if (!bumped) throw new VersionMoved();
    const deltaId = await commit.recordDelta(tx, version);
    await writeChanges(tx, commit.playbookId, commit.changes, version, commit.provenance);
    await historyRepo.insertVersion(tx, {
      playbookId: commit.playbookId,
      number: version,
      author: commit.author,
      reason: commit.reason,
      changes: commit.changes,
      deltaId,
    });
  }, WRITE_TRANSACTION);
  // Committed: move the cached state forward instead of reloading it.
  if (!entry.retired) {
    entry.retired = true;
    if (entry.index) syncSimilarityIndex(entry.index, commit.changes);
    remember(db, commit.playbookId, {
      version,
      state: commit.next,
      index: entry.index,
      tokens: entry.tokens === null ? null : entry.tokens + tokenDelta(commit.changes),
      retired: false,
    });
  }
  return version;
}

/** Anything but a shift among neighbours makes a proposal that targets the bullet stale. */
function bumpsStaleness(before: BulletState, after: BulletState): boolean {
  return (Object.keys(after) as (keyof BulletState)[]).some((key) => key !== "position" && before[key] !== after[key]);
}

async function writeChanges(
  tx: Tx,
  playbookId: string,
  changes: readonly VersionChange[],
  version: number,
  provenance: (bulletId: string) => repo.NewBulletProvenance,
): Promise<void> {
  const newSections: SectionState[] = [];
  const sectionUpdates: { before: SectionState; after: SectionState }[] = [];
  const removedSections: string[] = [];
  const bullets: repo.BulletWrite[] = [];
  for (const change of changes) {
    if (change.entity === "section") {
      if (!change.before && change.after) newSections.push(change.after);
      else if (change.before && change.after) sectionUpdates.push({ before: change.before, after: change.after });
      else if (change.before) removedSections.push(change.id);
      continue;
    }
    if (!change.before && change.after) bullets.push({ state: change.after, provenance: provenance(change.id), bump: true });
    else if (change.before && change.after) {
      bullets.push({ state: change.after, provenance: null, bump: bumpsStaleness(change.before, change.after) });
    } else {
      throw new Error(`A change may not delete bullet [${change.id}]: bullets are archived, never deleted.`);
    }
  }
  // Renames first: a new section may take the name another one gives up in the same delta.
  await repo.updateSections(tx, playbookId, sectionUpdates, version);
  await repo.insertSections(tx, playbookId, newSections, version);
  await repo.writeBullets(tx, playbookId, bullets, version);
  await repo.deleteSections(tx, playbookId, removedSections);
}

// ---- 3. Targets, staleness and findings ------------------------------------------------------

export interface Targets {
  bulletIds: string[];
  sectionIds: string[];
}

/** The bullets an operation reads or changes, and the sections it depends on (resolved now). */
export function operationTargets(op: DeltaOperation, sections: readonly SectionState[]): Targets {
  const section = (ref: string | undefined): string[] => {
    const id = ref === undefined ? undefined : resolveSection(sections, ref)?.id;
    return id === undefined ? [] : [id];
  };
  switch (op.type) {
    case "add":
      return { bulletIds: [], sectionIds: section(op.section) };
    case "update":
      return { bulletIds: [op.bulletId], sectionIds: section(op.section) };
    case "remove":
    case "restore":
    case "tag":
      return { bulletIds: [op.bulletId], sectionIds: [] };
    case "merge":
      return { bulletIds: [...new Set([...op.bulletIds, op.into])], sectionIds: [] };
    case "add_section":
      return { bulletIds: [], sectionIds: [] };
    case "rename_section":
    case "move_section":
      return { bulletIds: [], sectionIds: section(op.section) };
  }
}

function mergeTargets(list: readonly Targets[]): Targets {
  return {
    bulletIds: [...new Set(list.flatMap((t) => t.bulletIds))],
    sectionIds: [...new Set(list.flatMap((t) => t.sectionIds))],
  };
}

interface StaleTarget {
  /** Bullet external id or section id. */
  target: string;
  /** "[str-00001]" or 'section "Tools"'. */
  label: string;
  version: number;
  message: string;
}

/** Targets changed after `baseVersion`; nothing to check when the playbook has not moved since. */
async function staleTargets(
  db: Db,
  playbookId: string,
  baseVersion: number,
  currentVersion: number,
  targets: Targets,
): Promise<StaleTarget[]> {
  if (currentVersion <= baseVersion) return [];
  const changed = await repo.changedTargets(db, playbookId, baseVersion, targets.bulletIds, targets.sectionIds);
  const describe = (target: string, label: string, version: number): StaleTarget => ({
    target,
    label,
    version,
    message: `${label} changed in version ${version}, after version ${baseVersion} this delta was proposed against.`,
  });
  return [
    ...changed.bullets.map((b) => describe(b.externalId, `[${b.externalId}]`, b.changedInVersion)),
    ...changed.sections.map((s) => describe(s.id, `Section "${s.name}"`, s.changedInVersion)),
  ];
}

function staleError(reasons: StaleTarget[]): AppError {
  return new AppError(
    "CONFLICT",
    `This delta is stale: ${reasons[0]?.message ?? "its targets changed."} ` +
      "Re-base it to review it against the current playbook, or reject it.",
    { details: { stale: true, reasons: reasons.map((r) => r.message) } },
  );
}

function raceError(what: string): AppError {
  return new AppError(
    "CONFLICT",
    `The playbook was changed by someone else a moment ago; your ${what} was not applied. Reload and try again.`,
    { details: { stale: true } },
  );
}

/**
 * Findings of a sub-list of a delta's operations, renumbered to the operations' places in the
 * whole delta, so "Operation 3" means the third operation the reviewer sees.
 */
function renumber(findings: readonly Finding[], ops: readonly DeltaOperation[], positions: readonly number[]): Finding[] {
  return findings.map((finding) => {
    const op = ops[finding.operationIndex];
    const position = positions[finding.operationIndex] ?? finding.operationIndex;
    if (!op) return finding;
    const local = `${operationLabel(finding.operationIndex, op)}: `;
    const message = finding.message.startsWith(local)
      ? `${operationLabel(position, op)}: ${finding.message.slice(local.length)}`
      : finding.message;
    const related = finding.relatedOperationIndex;
    return {
      ...finding,
      operationIndex: position,
      message,
      ...(related === undefined ? {} : { relatedOperationIndex: positions[related] ?? related }),
    };
  });
}

function invalidDelta(error: DeltaValidationError, ops: readonly DeltaOperation[], positions: readonly number[]): AppError {
  const findings = renumber(error.findings, ops, positions);
  const errors = findings.filter((f) => f.severity === "error");
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length === 2 ? "" : "s"})` : "";
  return new AppError("INVALID_INPUT", `${errors[0]?.message ?? "The delta is invalid."}${more} Nothing was changed.`, {
    cause: error,
    details: { findings },
  });
}

/** Applies, or throws INVALID_INPUT naming the operation; nothing is written either way. */
function applyOrExplain(
  snapshot: Snapshot,
  ops: readonly DeltaOperation[],
  positions: readonly number[],
  options: { nearDuplicates?: boolean } = {},
): DeltaResult {
  try {
    return applyDelta(snapshot.entry.state, ops, engineOptions(snapshot, ops, options));
  } catch (error) {
    if (error instanceof DeltaValidationError) throw invalidDelta(error, ops, positions);
    throw error;
  }
}

const REVIEW_KINDS: ReadonlySet<Finding["kind"]> = new Set(["near_duplicate", "token_budget", "content_too_long", "prompt_injection"]);

function hasReviewFlags(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === "error" || REVIEW_KINDS.has(f.kind));
}

const BULLET_ORIGIN: Record<DeltaOrigin, repo.NewBulletProvenance["origin"]> = {
  person: "manual",
  reflector: "curator",
  curator: "curator",
  pruning: "curator",
  import: "import",
  rollback: "manual",
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function provenanceFor(
  origin: DeltaOrigin,
  evidence: DeltaEvidence,
  rationale: string,
  addedRationale: ReadonlyMap<string, string>,
): (bulletId: string) => repo.NewBulletProvenance {
  const traceId = evidence.traceIds.find((id) => UUID.test(id)) ?? null;
  return (bulletId) => ({
    origin: BULLET_ORIGIN[origin],
    justification: (addedRationale.get(bulletId) || rationale || null)?.slice(0, 2_000) ?? null,
    sourceTraceId: traceId,
    sourceRunId: evidence.runIds[0] ?? null,
  });
}

/** Which add operation produced which new id: addedIds are in delta order. */
function addedRationales(ops: readonly { op: DeltaOperation; rationale: string }[], addedIds: readonly string[]): Map<string, string> {
  const map = new Map<string, string>();
  let next = 0;
  for (const { op, rationale } of ops) {
    if (op.type !== "add") continue;
    const id = addedIds[next++];
    if (id && rationale) map.set(id, rationale);
  }
  return map;
}

function readEvidence(stored: unknown): DeltaEvidence {
  const parsed = evidenceSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : evidenceSchema.parse({});
}

function storedFindings(flags: unknown): Finding[] {
  return Array.isArray(flags) ? (flags as Finding[]) : [];
}

function payloadOf(record: repo.OperationRecord): DeltaOperation {
  return record.payload as unknown as DeltaOperation;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

// ---- 4. Proposing -----------------------------------------------------------------------------

function withExtraFindings(validation: DeltaValidation, extra: ProposalOptions["extraFindings"]): DeltaValidation {
  if (!extra?.some((list) => list.length > 0)) return validation;
  const byOperation = validation.byOperation.map((list, index) => [...list, ...(extra[index] ?? [])]);
  return { ...validation, findings: byOperation.flat(), byOperation };
}

/** Applies when it can; otherwise the findings, as validateDelta reports them. */
function tryApply(
  snapshot: Snapshot,
  ops: readonly DeltaOperation[],
  options: EngineOptions = engineOptions(snapshot, ops),
): { validation: DeltaValidation; result: DeltaResult | null } {
  try {
    const result = applyDelta(snapshot.entry.state, ops, options);
    const byOperation = ops.map((_, index) => result.warnings.filter((finding) => finding.operationIndex === index));
    return { validation: { ok: true, findings: result.warnings, byOperation }, result };
  } catch (error) {
    if (!(error instanceof DeltaValidationError)) throw error;
    return { validation: { ok: false, findings: error.findings, byOperation: error.byOperation }, result: null };
  }
}

/** What only server code may ask of a proposal (the reflector and curator runs). */
export interface ProposalOptions {
  /**
   * Apply at once whatever the playbook's auto-apply setting, unless the engine flags the delta for
   * review: the reflector's counter tags are observations, not opinions.
   */
  applyUnlessFlagged?: boolean;
  /** Findings the caller made (e.g. prompt-injection checks), per operation; they send the delta to review. */
  extraFindings?: readonly (readonly Finding[])[];
  /**
   * Scores near-duplicates instead of the local index (a provider's embeddings). It must index the
   * snapshot's active bullets; the caller builds it from the state it proposes against.
   */
  similarity?: (state: PlaybookState) => SimilarityIndex;
}

export async function proposeDelta(
  db: Db,
  actor: string,
  input: z.output<typeof proposeDeltaInput>,
  options: ProposalOptions = {},
): Promise<DeltaOutcome> {
  const ops = input.operations.map((entry) => entry.operation as DeltaOperation);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const snapshot = await freshSnapshot(db, input.playbookId);
    const { head, settings, entry } = snapshot;
    const baseVersion = input.baseVersion ?? head.version;
    if (baseVersion > head.version) {
      throw new AppError("INVALID_INPUT", `The playbook is at version ${head.version}; a delta cannot be based on version ${baseVersion}.`);
    }
    const confident = input.confidence !== null && input.confidence >= settings.autoApplyConfidence;
    // Pruning is never applied without a person; duplicates and limit breaches wait for a reviewer.
    const mayAutoApply = (options.applyUnlessFlagged || (settings.autoApply && confident)) && input.origin !== "pruning";
    // When it may apply at once, one engine run both validates and applies.
    const similarity = options.similarity?.(entry.state);
    const engine = engineOptions(snapshot, ops, { similarity });
    const checked = mayAutoApply ? tryApply(snapshot, ops, engine) : { validation: validateDelta(entry.state, ops, engine), result: null };
    const validation = withExtraFindings(checked.validation, options.extraFindings);
    const { result } = checked;
    const targets = ops.map((op) => operationTargets(op, entry.state.sections));
    const stale = await staleTargets(db, input.playbookId, baseVersion, head.version, mergeTargets(targets));
    const autoApply = mayAutoApply && result !== null && stale.length === 0 && !hasReviewFlags(validation.findings);

    const deltaId = randomUUID();
    const operationRows = (status: "pending" | "approved"): repo.NewOperationRow[] =>
      input.operations.map((proposed, index) => ({
        id: randomUUID(),
        position: index,
        type: proposed.operation.type,
        status,
        payload: proposed.operation,
        flags: validation.byOperation[index] ?? [],
        rationale: proposed.rationale,
        targetIds: targets[index]?.bulletIds ?? [],
        targetSectionIds: targets[index]?.sectionIds ?? [],
      }));
    const deltaRow = (status: DeltaStatus, appliedVersion: number | null): repo.NewDeltaRow => ({
      id: deltaId,
      playbookId: input.playbookId,
      status,
      origin: input.origin,
      author: actor,
      rationale: input.rationale,
      confidence: input.confidence,
      baseVersion,
      appliedVersion,
      evidence: input.evidence,
      reviewNote:
        status !== "auto_applied"
          ? null
          : options.applyUnlessFlagged
            ? "Auto-applied: counter tags are observations; the playbook does not send them to review."
            : `Auto-applied: confidence ${input.confidence} ≥ ${settings.autoApplyConfidence}`,
      decidedBy: status === "auto_applied" ? "auto-apply" : null,
      decided: status === "auto_applied",
    });

    if (!autoApply) {
      await db.$transaction((tx) => repo.insertDelta(tx, deltaRow("pending", null), operationRows("pending")), WRITE_TRANSACTION);
      const errors = validation.findings.filter((f) => f.severity === "error").length;
      const duplicates = validation.findings.filter((f) => f.kind === "near_duplicate").length;
      const notes = [
        errors > 0 ? `${plural(errors, "problem")} to fix before it can be approved` : null,
        duplicates > 0 ? `${plural(duplicates, "near-duplicate")} flagged` : null,
        stale.length > 0 ? "stale: its targets changed since its base version" : null,
      ].filter(Boolean);
      return {
        deltaId,
        playbookId: input.playbookId,
        status: "pending",
        playbookVersion: head.version,
        appliedVersion: null,
        addedIds: [],
        findings: validation.findings,
        stale: stale.length > 0,
        autoApplied: false,
        message: `Delta proposed with ${plural(ops.length, "operation")}; it waits for review${
          notes.length ? ` (${notes.join("; ")})` : ""
        }.`,
      };
    }

    if (entry.retired || result === null) continue;
    try {
      const version = await commitChanges(db, {
        playbookId: input.playbookId,
        snapshot,
        next: result.state,
        changes: result.changes,
        author: actor,
        reason: `Auto-applied ${input.origin} delta${options.applyUnlessFlagged ? "" : ` (confidence ${input.confidence})`}${
          input.rationale ? `: ${input.rationale}` : ""
        }`,
        recordDelta: async (tx, version) => {
          await repo.insertDelta(tx, deltaRow("auto_applied", version), operationRows("approved"));
          return deltaId;
        },
        provenance: provenanceFor(
          input.origin,
          input.evidence,
          input.rationale,
          addedRationales(input.operations.map((o) => ({ op: o.operation, rationale: o.rationale })), result.addedIds),
        ),
      });
      return {
        deltaId,
        playbookId: input.playbookId,
        status: "auto_applied",
        playbookVersion: version,
        appliedVersion: version,
        addedIds: result.addedIds,
        findings: result.warnings,
        stale: false,
        autoApplied: true,
        message: options.applyUnlessFlagged
          ? `Delta auto-applied as version ${version}.`
          : `Delta auto-applied as version ${version}: its confidence ${input.confidence} reaches ` +
            `the playbook's threshold ${settings.autoApplyConfidence}.`,
      };
    } catch (error) {
      if (error instanceof VersionMoved) continue;
      throw error;
    }
  }
  throw raceError("proposal");
}

// ---- 5. Direct edits (the browser) --------------------------------------------------------

export async function editPlaybook(db: Db, actor: string, input: z.output<typeof editDeltaInput>): Promise<DeltaOutcome> {
  const ops = input.operations as DeltaOperation[];
  const positions = ops.map((_, index) => index);
  let raced = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const snapshot = await freshSnapshot(db, input.playbookId);
    const { head, entry } = snapshot;
    const baseVersion = input.expectedVersion ?? head.version;
    if (baseVersion > head.version) {
      throw new AppError("INVALID_INPUT", `The playbook is at version ${head.version}; reload it before editing.`);
    }
    const targets = mergeTargets(ops.map((op) => operationTargets(op, entry.state.sections)));
    const stale = await staleTargets(db, input.playbookId, baseVersion, head.version, targets);
    if (stale.length > 0) {
      if (raced) throw raceError("edit");
      const first = stale[0] as StaleTarget;
      throw new AppError(
        "CONFLICT",
        `${first.label} was changed in version ${first.version}, after version ${baseVersion} you were editing. ` +
          "Your edit was not applied; reload to see the newer change and edit again.",
        { details: { reasons: stale.map((s) => s.message) } },
      );
    }
    if (entry.retired) continue;
    const result = applyOrExplain(snapshot, ops, positions);
    if (result.changes.length === 0) {
      return {
        deltaId: "",
        playbookId: input.playbookId,
        status: "applied",
        playbookVersion: head.version,
        appliedVersion: null,
        addedIds: [],
        findings: result.warnings,
        stale: false,
        autoApplied: false,
        message: "Nothing changed: the playbook already looks like that.",
      };
    }
    const deltaId = randomUUID();
    try {
      const version = await commitChanges(db, {
        playbookId: input.playbookId,
        snapshot,
        next: result.state,
        changes: result.changes,
        author: actor,
        reason: input.reason,
        recordDelta: async (tx, version) => {
          await repo.insertDelta(
            tx,
            {
              id: deltaId,
              playbookId: input.playbookId,
              status: "applied",
              origin: "person",
              author: actor,
              rationale: input.reason,
              confidence: null,
              baseVersion,
              appliedVersion: version,
              evidence: evidenceSchema.parse({}),
              reviewNote: null,
              decidedBy: actor,
              decided: true,
            },
            ops.map((op, index) => ({
              id: randomUUID(),
              position: index,
              type: op.type,
              status: "approved",
              payload: op,
              flags: result.warnings.filter((f) => f.operationIndex === index),
              rationale: "",
              ...targetColumns(operationTargets(op, entry.state.sections)),
            })),
          );
          return deltaId;
        },
        provenance: provenanceFor("person", evidenceSchema.parse({}), input.reason, new Map()),
      });
      return {
        deltaId,
        playbookId: input.playbookId,
        status: "applied",
        playbookVersion: version,
        appliedVersion: version,
        addedIds: result.addedIds,
        findings: result.warnings,
        stale: false,
        autoApplied: false,
        message: `Saved as version ${version}.`,
      };
    } catch (error) {
      if (error instanceof VersionMoved) {
        raced = true;
        continue;
      }
      throw error;
    }
  }
  throw raceError("edit");
}

function targetColumns(targets: Targets) {
  return { targetIds: targets.bulletIds, targetSectionIds: targets.sectionIds };
}

// ---- 6. Reviewing ---------------------------------------------------------------------------

async function requireDelta(db: Db | Tx, deltaId: string): Promise<repo.DeltaRecord> {
  const delta = await repo.findDelta(db, deltaId);
  if (!delta) throw notFound("The delta");
  return delta;
}

function requirePending(delta: repo.DeltaRecord): void {
  if (delta.status === "pending") return;
  const by = delta.decidedBy ? ` by ${delta.decidedBy}` : "";
  const what = delta.status === "rejected" ? "rejected" : delta.status === "auto_applied" ? "auto-applied" : "applied";
  throw new AppError("CONFLICT", `This delta was already ${what}${by}; there is nothing left to decide. Reload the queue.`);
}

function alreadyDecided(): AppError {
  return new AppError("CONFLICT", "This delta was decided by someone else a moment ago. Reload the queue.");
}

function checkEditType(record: repo.OperationRecord, op: DeltaOperation): void {
  if (record.type !== op.type) {
    throw new AppError(
      "INVALID_INPUT",
      `Operation ${record.position + 1} is a ${record.type} operation; an edit keeps its type (got ${op.type}). ` +
        "Reject it and propose a new one instead.",
    );
  }
}

export async function approveDelta(db: Db, actor: string, input: z.output<typeof approveDeltaInput>): Promise<DeltaOutcome> {
  let raced = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const delta = await requireDelta(db, input.deltaId);
    requirePending(delta);
    const byId = new Map(delta.operations.map((op) => [op.id, op]));
    const pending = delta.operations.filter((op) => op.status === "pending");
    for (const id of [...(input.operationIds ?? []), ...input.edits.map((e) => e.operationId)]) {
      const record = byId.get(id);
      if (!record) throw new AppError("INVALID_INPUT", `Operation ${id} is not part of this delta.`);
      if (record.status !== "pending") {
        throw new AppError("INVALID_INPUT", `Operation ${record.position + 1} was already ${record.status}.`);
      }
    }
    const edits = new Map(input.edits.map((edit) => [edit.operationId, edit.operation as DeltaOperation]));
    for (const [id, op] of edits) checkEditType(byId.get(id) as repo.OperationRecord, op);
    const chosen = new Set(input.operationIds ?? pending.map((op) => op.id));
    const selected = pending.filter((op) => chosen.has(op.id));
    if (selected.length === 0) throw new AppError("INVALID_INPUT", "This delta has no pending operation to approve. Reject it instead.");
    const ops = selected.map((record) => edits.get(record.id) ?? payloadOf(record));
    const positions = selected.map((record) => record.position);

    const snapshot = await freshSnapshot(db, delta.playbookId);
    const { head, entry } = snapshot;
    const targets = mergeTargets(ops.map((op) => operationTargets(op, entry.state.sections)));
    const stale = await staleTargets(db, delta.playbookId, delta.baseVersion, head.version, targets);
    if (stale.length > 0) throw raced ? raceError("approval") : staleError(stale);
    if (entry.retired) continue;
    const result = applyOrExplain(snapshot, ops, positions, { nearDuplicates: false });
    const rejectedIds = pending.filter((op) => !chosen.has(op.id)).map((op) => op.id);
    const origin = delta.origin as DeltaOrigin;
    const note = input.note ?? null;
    try {
      const version = await commitChanges(db, {
        playbookId: delta.playbookId,
        snapshot,
        next: result.state,
        changes: result.changes,
        author: actor,
        reason: approvalReason(delta, selected.length, pending.length, note),
        recordDelta: async (tx, version) => {
          const decided = await repo.decideDelta(tx, delta.id, {
            status: "applied",
            appliedVersion: version,
            reviewNote: note,
            decidedBy: actor,
            decidedAt: new Date(),
          });
          if (decided !== 1) throw alreadyDecided();
          for (const [id, op] of edits) {
            const record = byId.get(id) as repo.OperationRecord;
            await repo.updateOperation(tx, id, {
              payload: op,
              originalPayload: record.originalPayload ?? record.payload,
              editedBy: actor,
              ...targetColumns(operationTargets(op, entry.state.sections)),
            });
          }
          await repo.setOperationStatus(tx, delta.id, selected.map((op) => op.id), "approved");
          await repo.setOperationStatus(tx, delta.id, rejectedIds, "rejected");
          return delta.id;
        },
        provenance: provenanceFor(
          origin,
          readEvidence(delta.evidence),
          delta.rationale,
          addedRationales(
            selected.map((record, index) => ({ op: ops[index] as DeltaOperation, rationale: record.rationale })),
            result.addedIds,
          ),
        ),
      });
      const partial = rejectedIds.length > 0 ? ` (${plural(selected.length, "operation")} approved, ${rejectedIds.length} rejected)` : "";
      return {
        deltaId: delta.id,
        playbookId: delta.playbookId,
        status: "applied",
        playbookVersion: version,
        appliedVersion: version,
        addedIds: result.addedIds,
        findings: result.warnings.length ? renumber(result.warnings, ops, positions) : [],
        stale: false,
        autoApplied: false,
        message: `Delta approved and applied as version ${version}${partial}.`,
      };
    } catch (error) {
      if (error instanceof VersionMoved) {
        raced = true;
        continue;
      }
      throw error;
    }
  }
  throw raceError("approval");
}

function approvalReason(delta: repo.DeltaRecord, approved: number, pending: number, note: string | null): string {
  const part = approved < pending ? ` (${approved} of ${pending} operations)` : "";
  const why = delta.rationale ? `: ${delta.rationale}` : "";
  const noted = note ? ` — ${note}` : "";
  return `Approved ${delta.origin} delta by ${delta.author}${part}${why}${noted}`.slice(0, 4_000);
}

export async function rejectDelta(db: Db, actor: string, input: z.output<typeof rejectDeltaInput>): Promise<DeltaOutcome> {
  const delta = await requireDelta(db, input.deltaId);
  requirePending(delta);
  const pending = delta.operations.filter((op) => op.status === "pending");
  const ids = input.operationIds ?? pending.map((op) => op.id);
  for (const id of ids) {
    const record = delta.operations.find((op) => op.id === id);
    if (!record) throw new AppError("INVALID_INPUT", `Operation ${id} is not part of this delta.`);
    if (record.status !== "pending") throw new AppError("INVALID_INPUT", `Operation ${record.position + 1} was already ${record.status}.`);
  }
  const remaining = pending.filter((op) => !ids.includes(op.id));
  const whole = remaining.length === 0;
  await db.$transaction(async (tx) => {
    if (whole) {
      const decision = { status: "rejected" as const, reviewNote: input.reason, decidedBy: actor, decidedAt: new Date() };
      const decided = await repo.decideDelta(tx, delta.id, decision);
      if (decided !== 1) throw alreadyDecided();
    } else if (!(await repo.lockPendingDelta(tx, delta.id))) {
      throw alreadyDecided();
    }
    await repo.setOperationStatus(tx, delta.id, ids, "rejected");
    if (!whole) {
      // A partial rejection keeps its reason with the operations it concerns.
      for (const id of ids) {
        const rationale = delta.operations.find((op) => op.id === id)?.rationale ?? "";
        await repo.updateOperation(tx, id, { rationale: appendNote(rationale, `Rejected by ${actor}: ${input.reason}`) });
      }
    }
  }, WRITE_TRANSACTION);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: whole ? "rejected" : "pending",
    playbookVersion: delta.playbook.version,
    appliedVersion: null,
    addedIds: [],
    findings: [],
    stale: false,
    autoApplied: false,
    message: whole
      ? "Delta rejected. The playbook is unchanged."
      : `${plural(ids.length, "operation")} rejected; ${plural(remaining.length, "operation")} still wait for review.`,
  };
}

function appendNote(rationale: string, note: string): string {
  return (rationale ? `${rationale}\n${note}` : note).slice(0, 4_000);
}

export async function updateOperation(db: Db, actor: string, input: z.output<typeof updateOperationInput>): Promise<DeltaOutcome> {
  const delta = await requireDelta(db, input.deltaId);
  requirePending(delta);
  const record = delta.operations.find((op) => op.id === input.operationId);
  if (!record) throw new AppError("INVALID_INPUT", "That operation is not part of this delta.");
  if (record.status !== "pending") throw new AppError("INVALID_INPUT", `Operation ${record.position + 1} was already ${record.status}.`);
  const op = input.operation as DeltaOperation;
  checkEditType(record, op);
  const snapshot = await freshSnapshot(db, delta.playbookId);
  const pending = delta.operations.filter((o) => o.status === "pending");
  const ops = pending.map((o) => (o.id === record.id ? op : payloadOf(o)));
  const validation = revalidate(snapshot, pending, ops);
  await db.$transaction(async (tx) => {
    if (!(await repo.lockPendingDelta(tx, delta.id))) throw alreadyDecided();
    await repo.updateOperation(tx, record.id, {
      payload: op,
      originalPayload: record.originalPayload ?? record.payload,
      editedBy: actor,
      ...(input.rationale === undefined ? {} : { rationale: input.rationale }),
    });
    await storeFindings(tx, pending, ops, validation.byRecord, snapshot);
  }, WRITE_TRANSACTION);
  const targets = mergeTargets(ops.map((o) => operationTargets(o, snapshot.entry.state.sections)));
  const stale = await staleTargets(db, delta.playbookId, delta.baseVersion, snapshot.head.version, targets);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: "pending",
    playbookVersion: snapshot.head.version,
    appliedVersion: null,
    addedIds: [],
    findings: validation.findings,
    stale: stale.length > 0,
    autoApplied: false,
    message: `Operation ${record.position + 1} updated${validation.ok ? "." : "; the delta still has problems to fix."}`,
  };
}

/** Validates the pending operations against the current version, findings numbered as the delta's. */
function revalidate(snapshot: Snapshot, records: readonly repo.OperationRecord[], ops: readonly DeltaOperation[]) {
  const positions = records.map((r) => r.position);
  const validation = validateDelta(snapshot.entry.state, ops, engineOptions(snapshot, ops));
  const byRecord = new Map<string, Finding[]>();
  records.forEach((record, index) => byRecord.set(record.id, renumber(validation.byOperation[index] ?? [], ops, positions)));
  return { ok: validation.ok, findings: renumber(validation.findings, ops, positions), byRecord };
}

async function storeFindings(
  tx: Tx,
  records: readonly repo.OperationRecord[],
  ops: readonly DeltaOperation[],
  byRecord: ReadonlyMap<string, Finding[]>,
  snapshot: Snapshot,
): Promise<void> {
  for (const [index, record] of records.entries()) {
    const op = ops[index] as DeltaOperation;
    await repo.updateOperation(tx, record.id, {
      flags: byRecord.get(record.id) ?? [],
      ...targetColumns(operationTargets(op, snapshot.entry.state.sections)),
    });
  }
}

export async function rebaseDelta(db: Db, actor: string, deltaId: string): Promise<DeltaOutcome> {
  const delta = await requireDelta(db, deltaId);
  requirePending(delta);
  const snapshot = await freshSnapshot(db, delta.playbookId);
  const pending = delta.operations.filter((o) => o.status === "pending");
  const ops = pending.map(payloadOf);
  const validation = revalidate(snapshot, pending, ops);
  const version = snapshot.head.version;
  await db.$transaction(async (tx) => {
    if (!(await repo.lockPendingDelta(tx, delta.id))) throw alreadyDecided();
    await storeFindings(tx, pending, ops, validation.byRecord, snapshot);
    if (validation.ok) await repo.rebaseDelta(tx, delta.id, version);
  }, WRITE_TRANSACTION);
  void actor;
  const targets = mergeTargets(ops.map((o) => operationTargets(o, snapshot.entry.state.sections)));
  const stale = validation.ok ? [] : await staleTargets(db, delta.playbookId, delta.baseVersion, version, targets);
  return {
    deltaId: delta.id,
    playbookId: delta.playbookId,
    status: "pending",
    playbookVersion: version,
    appliedVersion: null,
    addedIds: [],
    findings: validation.findings,
    stale: stale.length > 0,
    autoApplied: false,
    message: validation.ok
      ? `Re-based on version ${version}: the operations still apply. ` +
        "Review the changes against the current bullets, then approve or reject."
      : `The delta no longer applies to version ${version}: ${validation.findings.find((f) => f.severity === "error")?.message ?? ""} ` +
        "Edit the operations or reject the delta.",
  };
}

export async function bulkDecide(db: Db, actor: string, input: z.output<typeof bulkDeltaInput>): Promise<BulkResult> {
  const results: BulkResult["results"] = [];
  // One by one, each in its own transaction: a failure stops only its own delta.
  for (const deltaId of [...new Set(input.deltaIds)]) {
    try {
      const outcome =
        input.action === "approve"
          ? await approveDelta(db, actor, { deltaId, edits: [], ...(input.reason ? { note: input.reason } : {}) })
          : await rejectDelta(db, actor, { deltaId, reason: input.reason ?? "" });
      results.push({ deltaId, ok: true, status: outcome.status, appliedVersion: outcome.appliedVersion, error: null });
    } catch (error) {
      if (!(error instanceof AppError)) console.error("[delta.bulk]", error);
      results.push({
        deltaId,
        ok: false,
        status: null,
        appliedVersion: null,
        error:
          error instanceof AppError
            ? { code: error.code, message: error.message }
            : { code: "INTERNAL", message: "Something went wrong on the server; this delta was not changed." },
      });
    }
  }
  const succeeded = results.filter((r) => r.ok).length;
  return { results, succeeded, failed: results.length - succeeded };
}

// ---- 7. Pruning -------------------------------------------------------------------------------

export async function proposePruningDelta(db: Db, actor: string, playbookId: string): Promise<PruningResult> {
  const snapshot = await loadSnapshot(db, playbookId);
  const { pruning, maxBullets } = snapshot.settings;
  if (!pruning.enabled) {
    return { delta: null, reason: "Pruning is off for this playbook. Turn it on in the playbook's settings first.", candidates: 0 };
  }
  const proposed = pruningCandidates(snapshot.entry.state, { ...pruning, maxBullets });
  // Bullets an earlier pruning proposal still waits on are not proposed twice.
  const waiting = new Set((await repo.pendingPruningTargets(db, playbookId)).flatMap((op) => op.targetIds));
  const fresh = proposed.filter((op) => !waiting.has(op.bulletId));
  if (fresh.length === 0) {
    const reason =
      proposed.length === 0
        ? "No active bullet meets the pruning policy: nothing to remove."
        : `Every bullet the policy would remove (${proposed.length}) is already in a pending pruning delta.`;
    return { delta: null, reason, candidates: proposed.length };
  }
  const delta = await proposeDelta(db, actor, {
    playbookId,
    origin: "pruning",
    operations: fresh.map((op) => ({ operation: op, rationale: op.reason })),
    rationale: `Pruning by the playbook's policy: ${plural(fresh.length, "bullet")} to archive.`,
    confidence: null,
    evidence: evidenceSchema.parse({}),
  });
  return { delta, reason: null, candidates: proposed.length };
}

// ---- 8. The queue: list and get ------------------------------------------------------------

export async function listDeltas(db: Db, query: z.output<typeof listDeltasInput>): Promise<DeltaPage> {
  if (query.playbookId && !(await repo.currentVersion(db, query.playbookId))) throw notFound("The playbook");
  const [rows, total] = await Promise.all([repo.listDeltas(db, query), repo.countDeltas(db, query)]);
  const items = rows.map(listItem);
  const nextCursor = query.cursor + rows.length < total ? query.cursor + rows.length : null;
  return { items, total, nextCursor };
}

function listItem(row: repo.DeltaListRow): DeltaListItem {
  return {
    id: row.id,
    playbookId: row.playbookId,
    playbookName: row.playbookName,
    status: row.status,
    origin: row.origin,
    author: row.author,
    rationale: row.rationale,
    confidence: row.confidence,
    baseVersion: row.baseVersion,
    appliedVersion: row.appliedVersion,
    currentVersion: row.currentVersion,
    reviewNote: row.reviewNote,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt,
    createdAt: row.createdAt,
    counts: { total: row.total, pending: row.pending, approved: row.approved, rejected: row.rejected },
    types: row.types ?? {},
    flags: { stale: row.stale, hasDuplicates: row.hasDuplicates, hasErrors: row.hasErrors, hasWarnings: row.hasWarnings },
  };
}

export async function getDelta(db: Db, deltaId: string): Promise<DeltaView> {
  const delta = await requireDelta(db, deltaId);
  const snapshot = await freshSnapshot(db, delta.playbookId);
  const { entry, head } = snapshot;
  const isPending = delta.status === "pending";
  const pending = delta.operations.filter((op) => op.status === "pending");
  const live = isPending && pending.length > 0 ? revalidate(snapshot, pending, pending.map(payloadOf)) : null;

  const allTargets = delta.operations.map((op) => operationTargets(payloadOf(op), entry.state.sections));
  const merged = mergeTargets(allTargets);
  const pendingTargets = mergeTargets(pending.map((op) => operationTargets(payloadOf(op), entry.state.sections)));
  const [snapshots, stale, overlaps, appliedChanges] = await Promise.all([
    repo.bulletSnapshots(db, delta.playbookId, merged.bulletIds),
    isPending ? staleTargets(db, delta.playbookId, delta.baseVersion, head.version, pendingTargets) : Promise.resolve([]),
    isPending ? repo.pendingOverlaps(db, delta.playbookId, delta.id, pendingTargets.bulletIds) : Promise.resolve([]),
    delta.appliedVersion === null ? Promise.resolve(null) : historyRepo.findVersionChanges(db, delta.playbookId, delta.appliedVersion),
  ]);
  const current = new Map(
    snapshots.map((b): [string, BulletSnapshot] => [
      b.externalId,
      {
        externalId: b.externalId,
        sectionId: b.sectionId,
        sectionName: b.section.name,
        content: b.content,
        helpful: b.helpful,
        harmful: b.harmful,
        neutral: b.neutral,
        countersKnown: b.countersKnown,
        status: b.status,
        changedInVersion: b.changedInVersion,
      },
    ]),
  );
  // An applied delta is shown against the bullets as they were just before it.
  const before = new Map<string, BulletState>();
  for (const change of (appliedChanges?.operations ?? []) as unknown as VersionChange[]) {
    if (change.entity === "bullet" && change.before) before.set(change.id, change.before);
  }
  const lookup = (id: string): BulletState | undefined => before.get(id) ?? entry.state.bullets.get(id);
  const sectionName = (id: string) => entry.state.sections.find((s) => s.id === id)?.name ?? null;

  const staleByTarget = new Map(stale.map((s) => [s.target, s]));
  // Model-written content is checked for prompt injection as it stands now (a reviewer may have edited it).
  const modelWritten = delta.origin === "curator" || delta.origin === "reflector";
  const injections = modelWritten ? injectionFindings(delta.operations.map(payloadOf)) : [];
  const operations = delta.operations.map((record, index): OperationView => {
    const payload = payloadOf(record);
    const targets = allTargets[index] as Targets;
    const conflicts: OperationConflict[] = [];
    if (record.status === "pending") {
      for (const target of [...targets.bulletIds, ...targets.sectionIds]) {
        const changed = staleByTarget.get(target);
        if (changed) conflicts.push({ kind: "changed_since_proposal", target, version: changed.version, message: changed.message });
      }
      for (const other of overlaps) {
        for (const target of other.targetIds.filter((id) => targets.bulletIds.includes(id))) {
          conflicts.push({
            kind: "pending_elsewhere",
            target,
            deltaId: other.deltaId,
            message: `Another pending delta also changes [${target}]; approving one may make the other stale.`,
          });
        }
      }
    }
    return {
      id: record.id,
      position: record.position,
      type: record.type,
      status: record.status,
      payload,
      rationale: record.rationale,
      originalPayload: (record.originalPayload as unknown as DeltaOperation | null) ?? null,
      editedBy: record.editedBy,
      findings: [
        ...(live?.byRecord.get(record.id) ?? storedFindings(record.flags).filter((finding) => finding.kind !== "prompt_injection")),
        ...(injections[index] ?? []),
      ],
      targets: targets.bulletIds.map((id) => current.get(id)).filter((b): b is BulletSnapshot => !!b),
      preview: previewOperation(payload, lookup, entry.state.sections, sectionName),
      conflicts,
    };
  });

  const flagsFrom = operations.filter((op) => op.status !== "rejected").flatMap((op) => op.findings);
  return {
    id: delta.id,
    playbookId: delta.playbookId,
    playbookName: delta.playbook.name,
    // The enum's "stale" is never written: staleness is computed from the targets (see staleTargets).
    status: delta.status as DeltaStatus,
    origin: delta.origin,
    author: delta.author,
    rationale: delta.rationale,
    confidence: delta.confidence,
    baseVersion: delta.baseVersion,
    appliedVersion: delta.appliedVersion,
    currentVersion: head.version,
    reviewNote: delta.reviewNote,
    decidedBy: delta.decidedBy,
    decidedAt: delta.decidedAt,
    createdAt: delta.createdAt,
    counts: {
      total: operations.length,
      pending: operations.filter((op) => op.status === "pending").length,
      approved: operations.filter((op) => op.status === "approved").length,
      rejected: operations.filter((op) => op.status === "rejected").length,
    },
    types: operations.reduce<DeltaView["types"]>((types, op) => ({ ...types, [op.type]: (types[op.type] ?? 0) + 1 }), {}),
    flags: {
      stale: stale.length > 0,
      hasDuplicates: flagsFrom.some((f) => f.kind === "near_duplicate"),
      hasErrors: flagsFrom.some((f) => f.severity === "error"),
      hasWarnings: flagsFrom.some((f) => f.severity === "warning"),
    },
    evidence: readEvidence(delta.evidence),
    operations,
    staleReasons: stale.map((s) => s.message),
  };
}

// ---- 9. Previews --------------------------------------------------------------------------

function countersOf(bullet: BulletState): Counters {
  return { helpful: bullet.helpful, harmful: bullet.harmful, neutral: bullet.neutral };
}

function contentDiff(before: string | null, after: string | null): OperationPreview["content"] {
  return { before, after, segments: diffText(before ?? "", after ?? "") };
}

const ZERO: Counters = { helpful: 0, harmful: 0, neutral: 0 };

function addCounters(a: Counters, b: Partial<Counters>): Counters {
  return { helpful: a.helpful + (b.helpful ?? 0), harmful: a.harmful + (b.harmful ?? 0), neutral: a.neutral + (b.neutral ?? 0) };
}

/** What an operation does to the bullets as `lookup` sees them, for the side-by-side view. */
export function previewOperation(
  op: DeltaOperation,
  lookup: (id: string) => BulletState | undefined,
  sections: readonly SectionState[],
  sectionName: (id: string) => string | null,
): OperationPreview {
  const preview = (summary: string, parts: Partial<OperationPreview> = {}): OperationPreview => ({
    summary,
    content: null,
    counters: null,
    section: null,
    archives: [],
    restores: [],
    ...parts,
  });
  const label = (ref: string) => resolveSection(sections, ref)?.name ?? ref;
  switch (op.type) {
    case "add": {
      const to = label(op.section);
      return preview(`Add a bullet to "${to}"`, { content: contentDiff(null, op.content.trim()), section: { from: null, to } });
    }
    case "update": {
      const bullet = lookup(op.bulletId);
      const from = bullet ? sectionName(bullet.sectionId) : null;
      const to = op.section === undefined ? from : label(op.section);
      const edits = op.content !== undefined && op.content.trim() !== bullet?.content;
      const moves = op.section !== undefined && to !== from;
      const reorders = op.position !== undefined && !moves;
      const what = [
        edits ? "edit" : null,
        moves ? `move to "${to}"` : null,
        reorders ? `reorder to place ${(op.position ?? 0) + 1}` : null,
      ];
      const summary = `${what.filter(Boolean).join(", ") || "update"} [${op.bulletId}]`;
      return preview(summary.charAt(0).toUpperCase() + summary.slice(1), {
        content: edits ? contentDiff(bullet?.content ?? null, op.content?.trim() ?? null) : null,
        section: moves ? { from, to } : null,
      });
    }
    case "remove":
      return preview(`Archive [${op.bulletId}]: ${op.reason}`, {
        content: contentDiff(lookup(op.bulletId)?.content ?? null, null),
        archives: [op.bulletId],
      });
    case "restore": {
      const bullet = lookup(op.bulletId);
      const content = bullet ? { before: null, after: bullet.content, segments: [{ kind: "same" as const, text: bullet.content }] } : null;
      return preview(`Restore [${op.bulletId}]`, { content, restores: [op.bulletId] });
    }
    case "merge": {
      const kept = lookup(op.into);
      const sources = [...new Set(op.bulletIds)].filter((id) => id !== op.into);
      const all = [kept, ...sources.map(lookup)].filter((b): b is BulletState => b !== undefined);
      return preview(`Merge ${sources.map((id) => `[${id}]`).join(", ")} into [${op.into}]`, {
        content: contentDiff(kept?.content ?? null, op.content.trim()),
        counters: kept ? { before: countersOf(kept), after: all.reduce(addCounters, ZERO) } : null,
        archives: sources,
      });
    }
    case "tag": {
      const bullet = lookup(op.bulletId);
      const before = bullet ? countersOf(bullet) : ZERO;
      const changed = (["helpful", "harmful", "neutral"] as const).filter((key) => (op[key] ?? 0) !== 0);
      const described = changed.map((key) => `${key} ${(op[key] ?? 0) > 0 ? "+" : ""}${op[key]}`).join(", ");
      return preview(`Counters of [${op.bulletId}]: ${described || "no change"}`, { counters: { before, after: addCounters(before, op) } });
    }
    case "add_section":
      return preview(`Add section "${op.name}"`, { section: { from: null, to: op.name } });
    case "rename_section":
      return preview(`Rename section "${label(op.section)}" to "${op.name}"`, { section: { from: label(op.section), to: op.name } });
    case "move_section":
      return preview(`Move section "${label(op.section)}" to place ${op.position + 1}`, {
        section: { from: label(op.section), to: label(op.section) },
      });
  }
}
