// Browsing a playbook: the list of playbooks, one playbook with its per-section counts and summary
// (tallied once per version), its bullets page by page with filters, and one bullet.
import type { z } from "zod";
import { BULLET_SIGNALS, classifyBullet, type BulletSignal } from "@/server/ace/signals";
import { countBulletTokens, countSectionTokens } from "@/server/ace/tokens";
import type { Db } from "@/server/db/client";
import { approximateBytes, cachePerScope, createByteBoundedCache, type LRUCache, MEGABYTE } from "@/server/cache/lru";
import { notFound } from "@/server/errors/app-error";
import { hasOwnRetention, requirePlaybook, settingsWithDefaults, STUDIO_DEFAULT_KEYS } from "./manage";
import { fromDbFormat } from "./mapping";
import * as repo from "./repository";
import { pageFromState } from "./state-page";
import type { BulletDetail, BulletPage, listBulletsInput, PlaybookDetail, PlaybookListItem, PlaybookSummary } from "./schemas";

export async function listPlaybooks(db: Db): Promise<PlaybookListItem[]> {
  const rows = await repo.listPlaybooks(db);
  return rows.map(({ _count, sourceFormat, ...row }) => ({
    ...row,
    sourceFormat: fromDbFormat(sourceFormat),
    bulletCount: _count.bullets,
    sectionCount: _count.sections,
  }));
}

interface Tally {
  summary: PlaybookSummary;
  activeBySection: Map<string, number>;
  sections: repo.SectionTally[];
}

/**
 * Totals for the summary strip and per-section counts. Tokens are the stored per-bullet counts plus
 * the section headers; bullets written before counts existed are counted once here and stored.
 */
async function tally(db: Db, playbookId: string, sectionNames: string[]): Promise<Tally> {
  const sections = await repo.tallyBySection(db, playbookId);
  const signals = Object.fromEntries(BULLET_SIGNALS.map((signal) => [signal, 0])) as Record<BulletSignal, number>;
  const summary: PlaybookSummary = { active: 0, archived: 0, signals, estimatedTokens: 0 };
  let uncounted = 0;
  for (const section of sections) {
    summary.active += section.active;
    summary.archived += section.archived;
    summary.estimatedTokens += section.tokens;
    uncounted += section.uncounted;
    for (const signal of BULLET_SIGNALS) signals[signal] += section.signals[signal];
  }
  if (uncounted > 0) {
    const counts = (await repo.uncountedBullets(db, playbookId)).map((bullet) => ({
      id: bullet.id,
      tokenCount: countBulletTokens(bullet),
    }));
    await repo.storeTokenCounts(db, counts);
    summary.estimatedTokens += counts.reduce((sum, { tokenCount }) => sum + tokenCount, 0);
  }
  summary.estimatedTokens += sectionNames.reduce((sum, name) => sum + countSectionTokens(name), 0);
  return { summary, activeBySection: new Map(sections.map((section) => [section.sectionId, section.active])), sections };
}

// The tally of each playbook's current version, per database. Every change to a playbook's bullets
// or sections bumps its version in the same transaction, so a tally holds while its version is the
// playbook's: opening a 10,000-bullet playbook again does not scan its bullets again. On globalThis
// so hot reload in development keeps one cache; bounded at 4 MB (a tally is a few hundred bytes a section).
type VersionTally = Tally & { version: number };
type TallyCaches = (db: Db) => LRUCache<string, VersionTally>;
const globalForTallies = globalThis as typeof globalThis & { __acePlaybookTallies?: TallyCaches };
const talliesOf: TallyCaches = (globalForTallies.__acePlaybookTallies ??= cachePerScope(() =>
  createByteBoundedCache<string, VersionTally>({ maxBytes: 4 * MEGABYTE, sizeOf: approximateBytes }),
));

async function tallyOfVersion(db: Db, playbookId: string, version: number, sectionNames: string[]): Promise<Tally> {
  const cache = talliesOf(db);
  const cached = cache.get(playbookId);
  if (cached?.version === version) return cached;
  const fresh = await tally(db, playbookId, sectionNames);
  cache.set(playbookId, { ...fresh, version });
  return fresh;
}

export async function getPlaybook(db: Db, playbookId: string): Promise<PlaybookDetail> {
  const found = await repo.findPlaybookPage(db, playbookId, STUDIO_DEFAULT_KEYS);
  if (!found) throw notFound("The playbook");
  const { sections, settingsByKey, ...playbook } = found;
  const { summary, activeBySection } = await tallyOfVersion(
    db,
    playbookId,
    playbook.version,
    sections.map((section) => section.name),
  );
  return {
    id: playbook.id,
    name: playbook.name,
    description: playbook.description,
    agentLabel: playbook.agentLabel,
    sourceFormat: fromDbFormat(playbook.sourceFormat),
    version: playbook.version,
    settings: settingsWithDefaults(playbook.settings, settingsByKey),
    ownRetention: hasOwnRetention(playbook.settings),
    createdAt: playbook.createdAt,
    updatedAt: playbook.updatedAt,
    sections: sections.map(({ blankLinesBefore: _layout, ...section }) => ({
      ...section,
      bulletCount: activeBySection.get(section.id) ?? 0,
    })),
    // A copy: the cached tally must not change with what a caller does to its result.
    summary: { ...summary, signals: { ...summary.signals } },
  };
}

/**
 * The number of bullets a filter matches, from the tally of the version the list was read at, when
 * the filter is one the tally counts (anything but a search); null otherwise.
 */
function totalFromTally(db: Db, query: z.output<typeof listBulletsInput>, version: number): number | null {
  const cached = talliesOf(db).peek(query.playbookId);
  if (cached?.version !== version || query.search) return null;
  const signals = query.signals?.length ? new Set(query.signals) : null;
  if (signals && query.status !== "active") return null; // signals are tallied for active bullets only
  const sections = query.sectionIds?.length ? new Set(query.sectionIds) : null;
  let total = 0;
  for (const section of cached.sections) {
    if (sections && !sections.has(section.sectionId)) continue;
    if (signals) for (const signal of signals) total += section.signals[signal];
    else if (query.status === "active") total += section.active;
    else if (query.status === "archived") total += section.archived;
    else total += section.active + section.archived;
  }
  return total;
}

export async function listBullets(db: Db, query: z.output<typeof listBulletsInput>): Promise<BulletPage> {
  const fromState = await pageFromState(db, query);
  if (fromState) return fromState;
  // The page's total comes from the version's tally when the page opened it (getPlaybook), which
  // spares the query a count over every matching bullet; otherwise the query counts them.
  const tallied = talliesOf(db).peek(query.playbookId);
  const countable = tallied !== undefined && totalFromTally(db, query, tallied.version) !== null;
  const { rows, version, total: counted } = await repo.listBullets(db, query, { count: !countable });
  const total =
    (version === null ? null : totalFromTally(db, query, version)) ??
    counted ??
    (rows.length > 0 || query.cursor > 0 ? await repo.countBullets(db, query) : 0);
  // No rows at all may mean no such playbook: say so rather than show an empty list.
  if (total === 0) await requirePlaybook(db, query.playbookId);
  const nextCursor = query.cursor + rows.length < total ? query.cursor + rows.length : null;
  return {
    total,
    nextCursor,
    items: rows.map((row) => ({ ...row, signal: classifyBullet(row) })),
  };
}

export async function getBullet(db: Db, playbookId: string, externalId: string): Promise<BulletDetail> {
  const bullet = await repo.findBullet(db, playbookId, externalId);
  if (!bullet) {
    await requirePlaybook(db, playbookId);
    throw notFound(`Bullet [${externalId}]`);
  }
  const { section, ...row } = bullet;
  return { ...row, sectionName: section.name, signal: classifyBullet(row) };
}
