// Playbook rules: create, browse, import and export. Every write is one transaction that also
// records its PlaybookVersion, so a failed import leaves nothing behind.
import type { z } from "zod";
import { DEFAULT_SECTIONS, highestIdNumber } from "@/server/ace/ids";
import type { PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { FORMAT_INFO, parsePlaybook, serializePlaybook } from "@/server/ace/formats";
import { defaultSectionGap } from "@/server/ace/formats/ace-text";
import { PlaybookParseError } from "@/server/ace/formats/errors";
import { BULLET_SIGNALS, classifyBullet, type BulletSignal } from "@/server/ace/signals";
import { bulletStateChanged, countChanges, type BulletState, type VersionChange } from "@/server/ace/history";
import { countBulletTokens, countSectionTokens } from "@/server/ace/tokens";
import { Prisma, type Db, type Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import * as historyRepo from "@/server/history/repository";
import * as repo from "./repository";
import {
  bulletRowFromDoc,
  documentFromRows,
  fromDbFormat,
  rowsFromDocument,
  stateOfRow,
  toDbFormat,
  type NewSectionRow,
} from "./mapping";
import {
  playbookSettingsSchema,
  type BulletDetail,
  type BulletPage,
  type createPlaybookInput,
  type exportPlaybookInput,
  type ExportResult,
  type importPlaybookInput,
  type ImportResult,
  type listBulletsInput,
  type PlaybookDetail,
  type PlaybookListItem,
  type PlaybookSettings,
  type PlaybookSummary,
  type updateSettingsInput,
  type UpdateSettingsResult,
} from "./schemas";

/** Imports of large playbooks on the embedded engine take seconds; the default 5 s would cut them off. */
const WRITE_TRANSACTION = { maxWait: 10_000, timeout: 120_000 } as const;

export async function listPlaybooks(db: Db): Promise<PlaybookListItem[]> {
  const rows = await repo.listPlaybooks(db);
  return rows.map(({ _count, sourceFormat, ...row }) => ({
    ...row,
    sourceFormat: fromDbFormat(sourceFormat),
    bulletCount: _count.bullets,
    sectionCount: _count.sections,
  }));
}

export function readSettings(stored: unknown): PlaybookSettings {
  const parsed = playbookSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : playbookSettingsSchema.parse({});
}

async function requirePlaybook(db: Db | Tx, playbookId: string) {
  const playbook = await repo.findPlaybook(db, playbookId);
  if (!playbook) throw notFound("The playbook");
  return playbook;
}

export async function createPlaybook(
  db: Db,
  actor: string,
  input: z.output<typeof createPlaybookInput>,
): Promise<{ id: string; name: string }> {
  const document: PlaybookDocument = {
    name: input.name,
    description: input.description,
    agentLabel: input.agentLabel,
    sections: DEFAULT_SECTIONS.map((section) => ({ name: section.name, slug: section.slug, bullets: [] })),
    hints: {},
  };
  const created = await createFromDocument(db, actor, document, {
    name: input.name,
    format: "ace",
    reason: "Created with the ACE default sections",
  });
  return { id: created.playbookId, name: created.name };
}

// ---- Settings ----------------------------------------------------------------------------

function describeSetting(value: unknown): string {
  if (value === null) return "none";
  if (typeof value === "boolean") return value ? "on" : "off";
  return String(value);
}

/**
 * Changes some curation settings. The change is recorded as a version without bullet changes, so
 * the history says who turned auto-apply or pruning on, and when.
 */
export async function updateSettings(
  db: Db,
  actor: string,
  input: z.output<typeof updateSettingsInput>,
): Promise<UpdateSettingsResult> {
  return db.$transaction(async (tx) => {
    const playbook = await requirePlaybook(tx, input.playbookId);
    const before = readSettings(playbook.settings);
    const { pruning, ...rest } = input.settings;
    const after = playbookSettingsSchema.parse({ ...before, ...rest, pruning: { ...before.pruning, ...pruning } });
    const changed: string[] = [];
    for (const key of Object.keys(after) as (keyof PlaybookSettings)[]) {
      if (key === "pruning") continue;
      if (before[key] !== after[key]) changed.push(`${key} ${describeSetting(before[key])} → ${describeSetting(after[key])}`);
    }
    for (const key of Object.keys(after.pruning) as (keyof PlaybookSettings["pruning"])[]) {
      if (before.pruning[key] !== after.pruning[key]) {
        changed.push(`pruning.${key} ${describeSetting(before.pruning[key])} → ${describeSetting(after.pruning[key])}`);
      }
    }
    if (changed.length === 0) return { settings: after, version: playbook.version, changed };
    if (!(await repo.bumpVersion(tx, playbook.id, playbook.version))) {
      throw new AppError("CONFLICT", "The playbook changed while saving its settings. Nothing was saved; reload and try again.");
    }
    await repo.updateSettings(tx, playbook.id, after as unknown as Prisma.InputJsonObject);
    await historyRepo.insertVersion(tx, {
      playbookId: playbook.id,
      number: playbook.version + 1,
      author: actor,
      reason: `Settings changed: ${changed.join(", ")}`,
      changes: [],
      deltaId: null,
    });
    return { settings: after, version: playbook.version + 1, changed };
  }, WRITE_TRANSACTION);
}

// ---- Browsing ----------------------------------------------------------------------------

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
// so hot reload in development keeps one cache.
const TALLIED_PLAYBOOKS = 64;
type TallyCache = WeakMap<Db, Map<string, Tally & { version: number }>>;
const globalForTallies = globalThis as typeof globalThis & { __acePlaybookTallies?: TallyCache };
const tallies: TallyCache = (globalForTallies.__acePlaybookTallies ??= new WeakMap());

async function tallyOfVersion(db: Db, playbookId: string, version: number, sectionNames: string[]): Promise<Tally> {
  let cache = tallies.get(db);
  if (!cache) {
    cache = new Map();
    tallies.set(db, cache);
  }
  const cached = cache.get(playbookId);
  if (cached?.version === version) return cached;
  const fresh = await tally(db, playbookId, sectionNames);
  // Re-inserted, so the Map's order is the eviction order.
  cache.delete(playbookId);
  cache.set(playbookId, { ...fresh, version });
  while (cache.size > TALLIED_PLAYBOOKS) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
  return fresh;
}

export async function getPlaybook(db: Db, playbookId: string): Promise<PlaybookDetail> {
  const [playbook, sections] = await Promise.all([requirePlaybook(db, playbookId), repo.listSections(db, playbookId)]);
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
    settings: readSettings(playbook.settings),
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
  const cached = tallies.get(db)?.get(query.playbookId);
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
  // The page's total comes from the version's tally when the page opened it (getPlaybook), which
  // spares the query a count over every matching bullet; otherwise the query counts them.
  const tallied = tallies.get(db)?.get(query.playbookId);
  const countable = tallied !== undefined && totalFromTally(db, query, tallied.version) !== null;
  const { rows, version } = await repo.listBullets(db, query, { count: !countable });
  const total =
    (version === null ? null : totalFromTally(db, query, version)) ??
    rows[0]?.total ??
    (rows.length > 0 || query.cursor > 0 ? await repo.countBullets(db, query) : 0);
  // No rows at all may mean no such playbook: say so rather than show an empty list.
  if (total === 0) await requirePlaybook(db, query.playbookId);
  const nextCursor = query.cursor + rows.length < total ? query.cursor + rows.length : null;
  return {
    total,
    nextCursor,
    items: rows.map(({ total: _total, version: _version, ...row }) => ({ ...row, signal: classifyBullet(row) })),
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

// ---- Import ------------------------------------------------------------------------------

function parseOrExplain(content: string, format: PlaybookFormat | "auto", fileName?: string) {
  try {
    return parsePlaybook(content, format);
  } catch (error) {
    if (!(error instanceof PlaybookParseError)) throw error;
    const where = fileName ? `${fileName}: ` : "";
    throw new AppError("INVALID_INPUT", `${where}${error.message}. Nothing was imported.`, {
      cause: error,
      details: { format: error.format, line: error.line ?? null, path: error.path ?? null, problem: error.problem },
    });
  }
}

export async function importPlaybook(
  db: Db,
  actor: string,
  input: z.output<typeof importPlaybookInput>,
): Promise<ImportResult> {
  const { format, document } = parseOrExplain(input.content, input.format, input.fileName);
  const source = input.fileName ? `${input.fileName} (${format})` : `pasted text (${format})`;
  const result =
    input.target.kind === "new"
      ? await createFromDocument(db, actor, document, {
          name: input.target.name,
          description: input.target.description,
          agentLabel: input.target.agentLabel,
          format,
          reason: `Imported from ${source}`,
        })
      : await mergeIntoPlaybook(db, actor, input.target.playbookId, document, input.target.mode, `Imported from ${source}`);
  // Embedded PGlite has no autovacuum, so the planner never learns a table grew: after a large import
  // it would plan for one row and look sections up once per bullet. Fresh statistics fix the plans.
  const bullets = document.sections.reduce((sum, section) => sum + section.bullets.length, 0);
  if (bullets >= ANALYZE_AFTER_BULLETS) await repo.refreshStatistics(db);
  return result;
}

/** Imports at least this large refresh the planner's statistics (a few ms for 10,000 rows). */
const ANALYZE_AFTER_BULLETS = 1_000;

interface CreateOptions {
  name: string;
  description?: string;
  agentLabel?: string;
  format: PlaybookFormat;
  reason: string;
}

export async function createFromDocument(
  db: Db,
  actor: string,
  document: PlaybookDocument,
  options: CreateOptions,
): Promise<ImportResult> {
  if (await repo.findPlaybookByName(db, options.name)) {
    throw new AppError(
      "CONFLICT",
      `A playbook named "${options.name}" already exists. Choose another name, or import into that playbook.`,
    );
  }
  const { sections, bullets } = rowsFromDocument(document);
  const ids = bullets.map(({ row }) => row.externalId);
  const settings = playbookSettingsSchema.parse(document.settings ?? {});
  const changes: VersionChange[] = [
    ...sections.map((section): VersionChange => ({ entity: "section", id: section.id, before: null, after: sectionState(section) })),
    ...bullets.map(({ state }): VersionChange => ({ entity: "bullet", id: state.externalId, before: null, after: state })),
  ];
  try {
    return await db.$transaction(async (tx) => {
      const playbook = await repo.insertPlaybook(tx, {
        id: crypto.randomUUID(),
        name: options.name,
        description: options.description ?? document.description ?? "",
        agentLabel: options.agentLabel ?? document.agentLabel ?? "",
        settings: settings as Prisma.InputJsonObject,
        sourceFormat: toDbFormat(options.format),
        formatHints: document.hints as Prisma.InputJsonObject,
        nextBulletNumber: Math.max(highestIdNumber(ids), document.lastIdNumber ?? 0) + 1,
        version: 1,
      });
      await repo.insertSections(tx, playbook.id, sections);
      await repo.insertBullets(tx, playbook.id, bullets.map(({ row }) => row));
      await historyRepo.insertVersion(tx, {
        playbookId: playbook.id,
        number: 1,
        author: actor,
        reason: options.reason,
        changes,
        deltaId: null,
      });
      return {
        playbookId: playbook.id,
        name: playbook.name,
        format: options.format,
        sectionCount: sections.length,
        bulletCount: bullets.filter(({ state }) => state.status === "active").length,
        version: 1,
      };
    }, WRITE_TRANSACTION);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw new AppError("CONFLICT", `A playbook named "${options.name}" was created at the same moment. Choose another name.`);
    }
    throw error;
  }
}

function sectionState(section: NewSectionRow) {
  return { id: section.id, name: section.name, slug: section.slug, position: section.position };
}

/**
 * Import into an existing playbook. merge: new sections and ids are added, known ids take the file's
 * content, section and counters (a file without counters keeps the stored ones). replace: the same,
 * and active bullets missing from the file are archived (never deleted, so it can be undone).
 */
async function mergeIntoPlaybook(
  db: Db,
  actor: string,
  playbookId: string,
  document: PlaybookDocument,
  mode: "merge" | "replace",
  reason: string,
): Promise<ImportResult> {
  return db.$transaction(async (tx) => {
    const playbook = await requirePlaybook(tx, playbookId);
    const sections = await repo.listSections(tx, playbookId);
    const states = new Map((await repo.loadBulletStates(tx, playbookId)).map((state) => [state.externalId, state]));
    const sectionIds = new Map(sections.map((section) => [section.name, section.id]));
    const nextPosition = new Map<string, number>();
    for (const state of states.values()) {
      nextPosition.set(state.sectionId, Math.max(nextPosition.get(state.sectionId) ?? 0, state.position + 1));
    }
    const changes: VersionChange[] = [];
    const newSections: NewSectionRow[] = [];
    let sectionPosition = sections.reduce((max, section) => Math.max(max, section.position + 1), 0);
    for (const section of document.sections) {
      if (sectionIds.has(section.name)) continue;
      const position = sectionPosition++;
      const row: NewSectionRow = {
        id: crypto.randomUUID(),
        name: section.name,
        slug: section.slug,
        position,
        blankLinesBefore: section.blankLinesBefore ?? defaultSectionGap(position),
      };
      sectionIds.set(section.name, row.id);
      newSections.push(row);
      changes.push({ entity: "section", id: row.id, before: null, after: sectionState(row) });
    }
    await repo.insertSections(tx, playbookId, newSections);

    const inFile = new Set<string>();
    const newBullets: repo.NewBulletRow[] = [];
    for (const section of document.sections) {
      const sectionId = sectionIds.get(section.name) as string;
      for (const bullet of section.bullets) {
        inFile.add(bullet.id);
        const before = states.get(bullet.id);
        if (!before) {
          const position = nextPosition.get(sectionId) ?? 0;
          nextPosition.set(sectionId, position + 1);
          const row = bulletRowFromDoc(bullet, sectionId, position, playbook.version + 1);
          newBullets.push(row);
          changes.push({ entity: "bullet", id: bullet.id, before: null, after: stateOfRow(row) });
          continue;
        }
        const after: BulletState = {
          ...before,
          content: bullet.content,
          sectionId,
          position: before.sectionId === sectionId ? before.position : (nextPosition.get(sectionId) ?? 0),
          status: bullet.status,
          ...(bullet.counters ? { ...bullet.counters, countersKnown: true } : {}),
        };
        if (after.sectionId !== before.sectionId) nextPosition.set(sectionId, after.position + 1);
        if (!bulletStateChanged(before, after)) continue;
        await repo.updateBullet(tx, playbookId, bullet.id, stateUpdate(after, playbook.version + 1));
        changes.push({ entity: "bullet", id: bullet.id, before, after });
      }
    }
    await repo.insertBullets(tx, playbookId, newBullets);

    if (mode === "replace") {
      for (const before of states.values()) {
        if (inFile.has(before.externalId) || before.status === "archived") continue;
        const after: BulletState = { ...before, status: "archived", archivedReason: `Not in the file of: ${reason}` };
        await repo.updateBullet(tx, playbookId, before.externalId, stateUpdate(after, playbook.version + 1));
        changes.push({ entity: "bullet", id: before.externalId, before, after });
      }
    }

    const counts = countChanges(changes);
    const activeCount = [...states.values()].filter((s) => s.status === "active").length;
    if (changes.length === 0) {
      return resultOf(playbook, sections.length, activeCount, playbook.version);
    }
    const nextBulletNumber = Math.max(
      playbook.nextBulletNumber,
      highestIdNumber([...inFile]) + 1,
      (document.lastIdNumber ?? 0) + 1,
    );
    if (!(await repo.bumpVersion(tx, playbookId, playbook.version, { nextBulletNumber }))) {
      throw new AppError("CONFLICT", "The playbook changed while the file was being imported. Nothing was imported; try again.");
    }
    const version = playbook.version + 1;
    await historyRepo.insertVersion(tx, {
      playbookId,
      number: version,
      author: actor,
      reason: `${reason}: ${describeCounts(counts)}`,
      changes,
      deltaId: null,
    });
    const active = activeCount + counts.bulletsAdded - counts.bulletsArchived;
    return resultOf(playbook, sections.length + newSections.length, active, version);
  }, WRITE_TRANSACTION);
}

function resultOf(
  playbook: { id: string; name: string; sourceFormat: repo.DbFormat },
  sectionCount: number,
  bulletCount: number,
  version: number,
): ImportResult {
  return { playbookId: playbook.id, name: playbook.name, format: fromDbFormat(playbook.sourceFormat), sectionCount, bulletCount, version };
}

/** `version`: the one this import writes; pending deltas that target the bullet become stale. */
function stateUpdate(state: BulletState, version: number): Prisma.BulletUpdateInput {
  const { externalId: _id, sectionId, ...fields } = state;
  return {
    ...fields,
    changedInVersion: version,
    tokenCount: countBulletTokens(state),
    section: { connect: { id: sectionId } },
  };
}

function describeCounts(counts: ReturnType<typeof countChanges>): string {
  const parts = [
    [counts.sectionsAdded, "section added", "sections added"],
    [counts.bulletsAdded, "bullet added", "bullets added"],
    [counts.bulletsUpdated, "bullet updated", "bullets updated"],
    [counts.bulletsArchived, "bullet archived", "bullets archived"],
  ] as const;
  return parts
    .filter(([count]) => count > 0)
    .map(([count, one, many]) => `${count} ${count === 1 ? one : many}`)
    .join(", ");
}

// ---- Export ------------------------------------------------------------------------------

export async function loadDocument(db: Db, playbookId: string): Promise<PlaybookDocument> {
  const playbook = await requirePlaybook(db, playbookId);
  const [sections, bullets] = await Promise.all([
    repo.listSections(db, playbookId),
    repo.listBulletsForExport(db, playbookId),
  ]);
  return documentFromRows(playbook, sections, bullets);
}

function fileNameFor(name: string, format: PlaybookFormat): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "playbook";
  return `${base}${FORMAT_INFO[format].extension}`;
}

export async function exportPlaybook(db: Db, input: z.output<typeof exportPlaybookInput>): Promise<ExportResult> {
  const playbook = await requirePlaybook(db, input.playbookId);
  const format = input.format ?? fromDbFormat(playbook.sourceFormat);
  const document = await loadDocument(db, input.playbookId);
  return {
    fileName: fileNameFor(playbook.name, format),
    format,
    mimeType: FORMAT_INFO[format].mimeType,
    content: serializePlaybook(document, format, { includeArchived: input.includeArchived || format === "json" }),
  };
}
