// The context an agent injects into its prompt: the playbook's active bullets, ranked and cut to a
// token budget by the context compiler (server/ace/context.ts), with an ETag so agents that poll
// before every call re-download it only when the playbook changed.
import { createHash } from "node:crypto";
import { compileContext, counterTokensWithoutNumbers, type ContextSection } from "@/server/ace/context";
import { countBulletTokens } from "@/server/ace/tokens";
import type { Db } from "@/server/db/client";
import { notFound } from "@/server/errors/app-error";
import { storeTokenCounts } from "@/server/playbooks/repository";
import { readSettings } from "@/server/playbooks/service";
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
 * The playbook and options a request resolves to, with their ETag: enough to answer a conditional
 * request (304) without reading a single bullet.
 */
export async function resolveContextTarget(db: Db, ref: PlaybookRef, request: ContextRequest): Promise<ContextTarget> {
  // A name from a URL path may arrive still percent-encoded or already decoded: try it as given first.
  const head =
    "playbookId" in ref
      ? await repo.findPlaybookById(db, ref.playbookId)
      : await repo.findPlaybookByNames(db, [...new Set([ref.name, safeDecode(ref.name)])]);
  if (!head) throw notFound("playbookId" in ref ? "The playbook" : `The playbook "${ref.name}"`);
  const target = {
    playbookId: head.id,
    name: head.name,
    version: head.version,
    budget: request.budget ?? readSettings(head.settings).tokenBudget,
    includeCounters: request.includeCounters,
    format: request.format,
  };
  return { ...target, etag: contextEtag(target) };
}

function sectionsOf(bullets: repo.ContextBulletTuple[]): ContextSection[] {
  const sections: ContextSection[] = [];
  let current: ContextSection | undefined;
  for (const [sectionName, externalId, content, helpful, harmful, neutral, countersKnown, tokenCount] of bullets) {
    if (current?.name !== sectionName) {
      current = { name: sectionName, bullets: [] };
      sections.push(current);
    }
    current.bullets.push({ externalId, content, helpful, harmful, neutral, countersKnown, tokenCount });
  }
  return sections;
}

/**
 * Compiles the context for a resolved target. The version is read again with the bullets, in one
 * statement; when the playbook changed in between, the answer (and its ETag) is of the new version.
 */
export async function compileTarget(db: Db, target: ContextTarget): Promise<{ result: ContextResult; etag: string }> {
  const cached = compiledCache.get(target.etag);
  if (cached) return cached;
  const compiled = await compileFromDatabase(db, target);
  remember(compiled);
  return compiled;
}

/**
 * Compiled contexts by ETag. The ETag names the playbook version and every option, and every change
 * to a playbook bumps its version, so an entry is never stale: agents that fetch the context before
 * each call pay the compile once per version, not once per call.
 */
const compiledCache = new Map<string, { result: ContextResult; etag: string }>();
const CACHED_CONTEXTS = 32;

function remember(compiled: { result: ContextResult; etag: string }) {
  compiledCache.delete(compiled.etag);
  compiledCache.set(compiled.etag, compiled);
  while (compiledCache.size > CACHED_CONTEXTS) {
    const oldest = compiledCache.keys().next().value;
    if (oldest === undefined) break;
    compiledCache.delete(oldest);
  }
}

/** For benchmarks and tests that time or check the compile itself. */
export function forgetCompiledContexts(): void {
  compiledCache.clear();
}

async function compileFromDatabase(db: Db, target: ContextTarget): Promise<{ result: ContextResult; etag: string }> {
  const loaded = await repo.loadContextCandidates(db, target.playbookId, {
    budget: target.budget,
    includeCounters: target.includeCounters,
    counterTokensWithoutNumbers: counterTokensWithoutNumbers(),
  });
  if (!loaded) throw notFound(`The playbook "${target.name}"`);

  // Bullets written before token counts existed are counted once and stored (as the playbook page does).
  const counted: { id: string; tokenCount: number }[] = [];
  for (const bullet of loaded.candidates) {
    if (bullet[7] >= 0) continue;
    const [, externalId, content, helpful, harmful, , countersKnown, , id] = bullet;
    bullet[7] = countBulletTokens({ externalId, content, helpful, harmful, countersKnown });
    counted.push({ id, tokenCount: bullet[7] });
  }
  if (counted.length > 0) await storeTokenCounts(db, counted);

  // The candidates are a ranked prefix of the playbook's bullets; the compiler makes the exact cut.
  const compiled = compileContext(sectionsOf(loaded.candidates), {
    tokenBudget: target.budget,
    includeCounters: target.includeCounters,
  });
  const version = loaded.version;
  const etag = version === target.version ? target.etag : contextEtag({ ...target, version });
  return {
    etag,
    result: {
      playbook: target.name,
      version,
      tokens: compiled.tokens,
      budget: target.budget,
      bulletCount: loaded.bulletCount,
      includedBullets: compiled.includedBullets.length,
      omittedBullets: loaded.bulletCount - compiled.includedBullets.length,
      context: compiled.text,
    },
  };
}

export async function getPlaybookContext(db: Db, ref: PlaybookRef, request: ContextRequest) {
  return compileTarget(db, await resolveContextTarget(db, ref, request));
}

/** The studio's preview: the JSON answer of the HTTP endpoint, by playbook id. */
export async function previewContext(db: Db, input: z.output<typeof playbookContextInput>): Promise<ContextResult> {
  const { result } = await getPlaybookContext(db, { playbookId: input.playbookId }, {
    budget: input.budget,
    includeCounters: input.counters,
    format: "json",
  });
  return result;
}
