// Validates and applies a delta. Both run the same walk over the operations: each is checked
// against the playbook as the earlier ones left it and applied only if it has no error, so
// validateDelta reports exactly what applyDelta would refuse. Deterministic: no clock, no
// randomness; bullet ids come from the playbook's counter and section ids from options.newSectionId.
import type { BulletState } from "../history";
import { buildSimilarityIndex, type SimilarityIndex } from "../similarity";
import { changesCountedText, compiledBulletText, stateTokens } from "../tokens";
import { findContradictions } from "./contradictions";
import { asSentence, makeFinding } from "./messages";
import { checkOperation, type OperationContext } from "./operations";
import {
  DEFAULT_MAX_CONTENT_LENGTH,
  DEFAULT_SIMILARITY_THRESHOLD,
  type DeltaOperation,
  type DeltaResult,
  type DeltaValidation,
  type EngineOptions,
  type Finding,
  type PlaybookState,
} from "./types";
import { WorkingState } from "./working";

export class DeltaValidationError extends Error {
  override readonly name = "DeltaValidationError";
  readonly findings: Finding[];
  readonly byOperation: Finding[][];

  constructor(validation: DeltaValidation) {
    const errors = validation.findings.filter((finding) => finding.severity === "error");
    const more = errors.length > 1 ? ` (${errors.length - 1} more ${errors.length === 2 ? "problem" : "problems"} in this delta)` : "";
    super(asSentence(`${errors[0]?.message ?? "The delta is invalid"}${more}`));
    this.findings = validation.findings;
    this.byOperation = validation.byOperation;
  }
}

export function validateDelta(state: PlaybookState, ops: readonly DeltaOperation[], options: EngineOptions): DeltaValidation {
  return runDelta(state, ops, options).validation;
}

/** Throws DeltaValidationError, changing nothing, when any operation has an error. */
export function applyDelta(state: PlaybookState, ops: readonly DeltaOperation[], options: EngineOptions): DeltaResult {
  const { validation, working, addedIds } = runDelta(state, ops, options);
  if (!validation.ok) throw new DeltaValidationError(validation);
  const { state: next, changes } = working.finish();
  return { state: next, changes, addedIds, warnings: validation.findings };
}

interface Run {
  validation: DeltaValidation;
  working: WorkingState;
  addedIds: string[];
}

function runDelta(state: PlaybookState, ops: readonly DeltaOperation[], options: EngineOptions): Run {
  const working = new WorkingState(state);
  const contradictions = findContradictions(ops);
  const byOperation: Finding[][] = [];
  const addedIds: string[] = [];
  let current = 0;
  const nearDuplicate = nearDuplicateFinder(state, working, options, () => current);
  const budget = options.tokenBudget === undefined ? null : tokenBudgetTracker(state, working, options, options.tokenBudget);

  for (const [index, op] of ops.entries()) {
    current = index;
    const findings: Finding[] = [];
    byOperation.push(findings);
    const ctx: OperationContext = {
      working,
      operation: (at) => ops[at],
      maxContentLength: options.maxContentLength ?? DEFAULT_MAX_CONTENT_LENGTH,
      newSectionId: options.newSectionId,
      addedIds,
      nearDuplicate,
      report: (severity, kind, text, extra) => findings.push(makeFinding(index, op, severity, kind, text, extra)),
    };
    const apply = checkOperation(ctx, op);
    // After the checks: a contradiction is about a second operation, the checks about this one.
    findings.push(...contradictions.filter((finding) => finding.operationIndex === index));
    if (!apply || findings.some((finding) => finding.severity === "error")) continue;
    budget?.start();
    apply();
    const breach = budget?.finish();
    if (breach) ctx.report("warning", "token_budget", breach);
  }
  const findings = byOperation.flat();
  return { validation: { ok: !findings.some((finding) => finding.severity === "error"), findings, byOperation }, working, addedIds };
}

/**
 * Near-duplicates among the active bullets as the delta leaves them, in two kinds. Bullets of the
 * input the delta has not touched are searched in the index; a match there may become a merge.
 * Bullets this delta added or rewrote sit in a small overlay index of the same kind, each with the
 * operation that last wrote it: a match there duplicates that operation, and the bullet it names may
 * not exist outside this delta, so it is never a merge target.
 */
function nearDuplicateFinder(
  state: PlaybookState,
  working: WorkingState,
  options: EngineOptions,
  currentOperation: () => number,
): OperationContext["nearDuplicate"] {
  const threshold = options.similarityThreshold ?? DEFAULT_SIMILARITY_THRESHOLD;
  // Scores are at most 1: above it nothing can match, so there is nothing to search or build.
  if (threshold > 1) return () => ({ existing: null, inDelta: null });
  const given = options.similarity;
  let base: SimilarityIndex | undefined = typeof given === "function" ? undefined : given;
  let overlay: SimilarityIndex | undefined;
  const stale = new Set<string>();
  const writtenBy = new Map<string, number>();
  const refresh = (bullet: BulletState) => {
    if (!overlay) return;
    if (bullet.status === "active") overlay.add(bullet.externalId, bullet.content);
    else overlay.remove(bullet.externalId);
  };
  working.onBulletChange((before, after) => {
    if (before && before.content === after.content && before.status === after.status) return;
    const original = state.bullets.get(after.externalId);
    const unchanged = original?.status === "active" && after.status === "active" && original.content === after.content;
    if (unchanged) {
      stale.delete(after.externalId);
      writtenBy.delete(after.externalId);
      overlay?.remove(after.externalId);
    } else {
      stale.add(after.externalId);
      writtenBy.set(after.externalId, currentOperation());
      refresh(after);
    }
  });
  return (content, exclude) => {
    base ??= typeof given === "function" ? given() : buildSimilarityIndex(state.bullets.values());
    if (!overlay) {
      overlay = base.emptyForFew?.() ?? base.empty();
      for (const id of stale) {
        const bullet = working.bullet(id);
        if (bullet) refresh(bullet);
      }
    }
    const query = { threshold, limit: 1 };
    const existing = base.query(content, { ...query, excludeIds: new Set([...stale, ...exclude]) })[0] ?? null;
    const written = overlay.query(content, { ...query, excludeIds: new Set(exclude) })[0];
    const operationIndex = written ? writtenBy.get(written.bulletId) : undefined;
    return { existing, inDelta: written && operationIndex !== undefined ? { ...written, operationIndex } : null };
  };
}

/**
 * Tracks the tokens the active bullets take in the compiled playbook (their lines with counters,
 * as the context and the playbook summary count them) while the delta runs, and names the first
 * operation that takes them over the budget (or, when the playbook is over it already, the first
 * that adds to it). The base count is taken only when an operation first changes a bullet's line.
 */
/** Whether a change shows in the bullet's compiled line: its content, counters or status. */
export function changesCompiledLine(before: BulletState, after: BulletState): boolean {
  return before.status !== after.status || changesCountedText(before, after);
}

function tokenBudgetTracker(state: PlaybookState, working: WorkingState, options: EngineOptions, budget: number) {
  const count = options.countTokens;
  const cache = new Map<string, number>();
  // The default count is kept with each bullet state (stateTokens), which what the delta writes reads
  // again (the version's figures, the rows, the compiled context); a counter the caller gives is asked per text.
  const tokensOf = (bullet: BulletState | undefined) => {
    if (bullet?.status !== "active") return 0;
    if (!count) return stateTokens(bullet);
    const text = compiledBulletText(bullet);
    let tokens = cache.get(text);
    if (tokens === undefined) {
      tokens = count(text);
      cache.set(text, tokens);
    }
    return tokens;
  };
  let total: number | null = null;
  let warned = false;
  let change = 0;
  working.onBulletChange((before, after) => {
    if (before && !changesCompiledLine(before, after)) return;
    total ??= options.stateTokenCount ?? [...state.bullets.values()].reduce((sum, bullet) => sum + tokensOf(bullet), 0);
    change += tokensOf(after) - tokensOf(before);
  });
  return {
    start: () => {
      change = 0;
    },
    finish: (): string | null => {
      if (total === null) return null;
      total += change;
      if (warned || change <= 0 || total <= budget) return null;
      warned = true;
      return (
        `the active bullets would take ${total} tokens of the compiled playbook, over its budget of ${budget}; ` +
        "agents would not see the lowest-ranked ones. Shorten, merge or remove bullets, or raise the budget"
      );
    },
  };
}
