// The context an agent injects into its prompt: the playbook's active bullets, ranked and cut to a
// token budget by the context compiler (server/ace/context.ts), with an ETag so agents that poll
// before every call re-download it only when the playbook changed.
import { createHash } from "node:crypto";
import { compileContext, contextSectionsOf, PinnedBudgetError, type ContextOptions, type ContextSection } from "@/server/ace/context";
import type { PlaybookState } from "@/server/ace/delta";
import { undoChanges } from "@/server/ace/replay";
import { adoptStateTokens, hasStateTokens, stateTokens } from "@/server/ace/tokens";
import { approximateBytes, createByteBoundedCache, MEGABYTE } from "@/server/cache/lru";
import type { Db } from "@/server/db/client";
import { loadSnapshot } from "@/server/deltas/engine-state";
import * as historyRepo from "@/server/history/repository";
import { AppError, notFound } from "@/server/errors/app-error";
import { readSettings } from "@/server/playbooks/manage";
import { keptHead } from "./heads";
import { servedVersion } from "./publication";
import * as repo from "./repository";
import type { z } from "zod";
import type { ContextFormat, ContextResult, playbookContextInput } from "./schemas";

/** Bump when the compiled text changes for the same playbook version, so cached copies are refetched. */
const COMPILER_REVISION = 1;

export type PlaybookRef = { playbookId: string } | { name: string };

export interface ContextRequest {
  /** Default: the playbook's tokenBudget setting. */
  budget?: number;
  includeCounters: boolean;
  format: ContextFormat;
}

/** What the ETag of a compiled context depends on: the playbook at a version, and the options. */
export interface ContextTarget {
  playbookId: string;
  name: string;
  version: number;
  budget: number;
  includeCounters: boolean;
  format: ContextFormat;
  etag: string;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function contextEtag(target: Omit<ContextTarget, "etag">): string {
  const key = [COMPILER_REVISION, target.playbookId, target.name, target.version, target.budget, target.includeCounters, target.format];
  return `"${createHash("sha256").update(JSON.stringify(key)).digest("base64url").slice(0, 27)}"`;
}

/**
 * The playbook's tokenBudget setting, parsed once per stored settings object: a kept head
 * (server/context/heads.ts) serves the same object to every poll, which need not validate it again.
 */
const budgets = new WeakMap<object, number>();

function defaultBudgetOf(settings: unknown): number {
  if (typeof settings !== "object" || settings === null) return readSettings(settings).tokenBudget;
  let budget = budgets.get(settings);
  if (budget === undefined) {
    budget = readSettings(settings).tokenBudget;
    budgets.set(settings, budget);
  }
  return budget;
}

/**
 * The playbook and options a request resolves to, with their ETag: enough to answer a conditional
 * request (304) without reading a single bullet. No query while this process holds the playbook's
 * head (server/context/heads.ts), else one (its row), when nothing is due for publication; the
 * version is the published one (server/context/publication.ts).
 */
export async function resolveContextTarget(db: Db, ref: PlaybookRef, request: ContextRequest): Promise<ContextTarget> {
  // A name from a URL path may arrive still percent-encoded or already decoded: try it as given first.
  const head =
    "playbookId" in ref
      ? await keptHead(db, `id:${ref.playbookId}`, () => repo.findPlaybookById(db, ref.playbookId))
      : await keptHead(db, `name:${ref.name}`, () => repo.findPlaybookByNames(db, [...new Set([ref.name, safeDecode(ref.name)])]));
  if (!head) throw notFound("playbookId" in ref ? "The playbook" : `The playbook "${ref.name}"`);
  const target = {
    playbookId: head.id,
    name: head.name,
    version: await servedVersion(db, head),
    budget: request.budget ?? defaultBudgetOf(head.settings),
    includeCounters: request.includeCounters,
    format: request.format,
  };
  return { ...target, etag: contextEtag(target) };
}

/**
 * Compiles the context of a resolved target from the delta engine's state of the playbook, which
 * every write keeps current in memory, taken back to the target's version when the playbook has
 * moved on since it (counter changes not published yet, or a write after the target was resolved):
 * an ETag always names one text.
 */
export function compileTarget(db: Db, target: ContextTarget): Promise<{ result: ContextResult; etag: string }> {
  const cached = compiledCache.get(target.etag);
  if (cached) return Promise.resolve(cached);
  let pending = compiling.get(target.etag);
  if (!pending) {
    pending = compileFromState(db, target)
      .then((compiled) => {
        compiledCache.set(compiled.etag, compiled);
        return compiled;
      })
      .finally(() => compiling.delete(target.etag));
    compiling.set(target.etag, pending);
  }
  return pending;
}

/**
 * Compiles under way, by ETag: the agents that ask for a newly published version at the same moment
 * (a hundred of them starting together, or polling right after a publication) share one compile
 * instead of each making its own before the first lands in the cache.
 */
const compiling = new Map<string, Promise<{ result: ContextResult; etag: string }>>();

/**
 * Compiled contexts by ETag. The ETag names the playbook version and every option, and every change
 * to a playbook bumps its version, so an entry is never stale: agents that fetch the context before
 * each call pay the compile once per published version, not once per call. An 80,000-token context is about
 * 0.6 MB; the bound keeps some fifty of those, or many more small ones.
 */
const CONTEXT_CACHE_BYTES = 32 * MEGABYTE;
const compiledCache = createByteBoundedCache<string, { result: ContextResult; etag: string }>({
  maxBytes: CONTEXT_CACHE_BYTES,
  sizeOf: (compiled) => approximateBytes(compiled),
});

/** For benchmarks and tests that time or check the compile itself. */
export function forgetCompiledContexts(): void {
  compiledCache.clear();
}

// A state's bullets are immutable objects, and a version shares the objects of the bullets it did
// not change, so section groupings are kept per state, and token counts per bullet (stateTokens, which
// the delta engine fills as it applies): a new version re-counts only the bullets it changed. Both are
// weak: they go when the engine drops the state.
const sectionsByState = new WeakMap<PlaybookState, { sections: ContextSection[]; active: number }>();

/** When more of a state's bullets than this lack a count, the counts stored with them are read first. */
const UNCOUNTED_BEFORE_READING = 200;

function sectionsOfState(state: PlaybookState): { sections: ContextSection[]; active: number } {
  let grouped = sectionsByState.get(state);
  if (!grouped) {
    const sections = contextSectionsOf(state);
    grouped = { sections, active: sections.reduce((sum, section) => sum + section.bullets.length, 0) };
    sectionsByState.set(state, grouped);
  }
  return grouped;
}

/**
 * Takes the counts stored with the bullets (about 1 s of tokenizing for 10,000 bullets, read in
 * milliseconds) when the state was just loaded, or a large change replaced many bullets. Counts read
 * at another version than the state's are not used: they may belong to other content.
 */
async function adoptStoredCounts(db: Db, playbookId: string, state: PlaybookState, version: number, sections: ContextSection[]) {
  let uncounted = 0;
  for (const section of sections) for (const bullet of section.bullets) if (!hasStateTokens(bullet)) uncounted += 1;
  if (uncounted <= UNCOUNTED_BEFORE_READING) return;
  const stored = await repo.loadStoredTokenCounts(db, playbookId);
  if (stored?.version !== version) return;
  for (const [externalId, tokens] of stored.counts) {
    const bullet = state.bullets.get(externalId);
    if (bullet?.status === "active") adoptStateTokens(bullet, tokens);
  }
}

/**
 * Versions between the target's and the engine's state are undone from their records when at most
 * this many changes (a minute of reflections at 40 traces/s is some 5,000): beyond it the newer
 * state is served, under its own ETag.
 */
const UNDO_CHANGES = 50_000;

/** The state at the target's version: the engine's, or the engine's with the later versions undone. */
async function stateAt(db: Db, target: ContextTarget): Promise<{ state: PlaybookState; version: number }> {
  const { entry } = await loadSnapshot(db, target.playbookId);
  const { state, version } = entry;
  if (version === target.version) {
    await adoptStoredCounts(db, target.playbookId, state, version, sectionsOfState(state).sections);
    return { state, version };
  }
  const records = version > target.version ? await historyRepo.versionChanges(db, target.playbookId, target.version, version) : [];
  const changes = records.flatMap((record) => record.changes);
  if (records.length !== version - target.version || changes.length > UNDO_CHANGES) return { state, version };
  // Counts read with the newer state are kept by bullet object, so the bullets both versions share keep them.
  await adoptStoredCounts(db, target.playbookId, state, version, sectionsOfState(state).sections);
  return { state: undoChanges(state, changes), version: target.version };
}

async function compileFromState(db: Db, target: ContextTarget): Promise<{ result: ContextResult; etag: string }> {
  const { state, version } = await stateAt(db, target);
  const { sections, active } = sectionsOfState(state);
  const compiled = compileServedContext(sections, {
    tokenBudget: target.budget,
    includeCounters: target.includeCounters,
    tokensWithCounters: stateTokens,
  });
  const etag = version === target.version ? target.etag : contextEtag({ ...target, version });
  return {
    etag,
    result: {
      playbook: target.name,
      version,
      tokens: compiled.tokens,
      budget: target.budget,
      bulletCount: active,
      includedBullets: compiled.includedBullets.length,
      omittedBullets: active - compiled.includedBullets.length,
      context: compiled.text,
    },
  };
}

/**
 * compileContext for what agents are served: when the pinned bullets alone exceed the budget, a
 * conflict (409) naming the budget they need, never a context without them.
 */
export function compileServedContext(sections: readonly ContextSection[], options: ContextOptions) {
  try {
    return compileContext(sections, options);
  } catch (error) {
    if (!(error instanceof PinnedBudgetError)) throw error;
    throw new AppError("CONFLICT", error.message, {
      details: { budget: error.budget, pinnedTokens: error.pinnedTokens, pinnedBullets: error.pinned },
      cause: error,
    });
  }
}

export async function getPlaybookContext(db: Db, ref: PlaybookRef, request: ContextRequest) {
  return compileTarget(db, await resolveContextTarget(db, ref, request));
}

/** The studio's preview: the JSON answer of the HTTP endpoint, by playbook id. */
export async function previewContext(db: Db, input: z.output<typeof playbookContextInput>): Promise<ContextResult> {
  const { result } = await getPlaybookContext(
    db,
    { playbookId: input.playbookId },
    {
      budget: input.budget,
      includeCounters: input.counters,
      format: "json",
    },
  );
  return result;
}
