// Importing a playbook file: parsed in any supported format (or detected), into a new playbook or
// merged into an existing one (merge adds and updates, replace also archives what the file lacks),
// as one transaction that records the version, so a failed import leaves nothing behind. Or proposed
// (propose): the file's changes since the version an external loop started from wait for review.
import type { z } from "zod";
import type { BulletCounters, PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { parsePlaybook } from "@/server/ace/formats";
import { defaultSectionGap } from "@/server/ace/formats/ace-text";
import { PlaybookParseError } from "@/server/ace/formats/errors";
import { bulletStateChanged, countChanges, type BulletState, type VersionChange } from "@/server/ace/history";
import { highestIdNumber } from "@/server/ace/ids";
import { countersOfFormat, type CounterName } from "@/server/ace/proposal-diff";
import { countsInWords } from "@/server/ace/text/format";
import { countBulletTokens } from "@/server/ace/tokens";
import { recordAudit, whoOf, type Who, type WhoOrName } from "@/server/audit/record";
import { forgetHead } from "@/server/context/heads";
import type { Db, Prisma } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import { proposeFromFile } from "@/server/deltas/propose";
import { recordVersion } from "@/server/history/record";
import { createFromDocument, requirePlaybook, WRITE_TRANSACTION } from "./manage";
import { bulletRowFromDoc, fromDbFormat, sectionStateOf, stateOfRow, type NewSectionRow } from "./mapping";
import { loadBulletStates } from "./repositories/bullet-states";
import * as repo from "./repository";
import { listBulletsInput, type importPlaybookInput, type ImportProposal, type ImportResult, type proposalRequestSchema } from "./schemas";

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

export async function importPlaybook(db: Db, author: WhoOrName, input: z.output<typeof importPlaybookInput>): Promise<ImportResult> {
  const who = whoOf(author);
  const { format, document, warnings } = parseOrExplain(input.content, input.format, input.fileName);
  const { target } = input;
  const source = input.fileName ? `${input.fileName} (${format})` : `pasted text (${format})`;
  let result: ImportResult;
  if (target.kind === "new") {
    result = await createFromDocument(db, who, document, {
      name: target.name,
      description: target.description,
      agentLabel: target.agentLabel,
      format,
      reason: `Imported from ${source}`,
      action: "playbook.import",
    });
  } else if (target.mode === "propose") {
    return { ...(await proposeInto(db, who, target, { document, format, source: input.fileName ?? "pasted text" })), warnings };
  } else {
    result = await mergeIntoPlaybook(
      db,
      who,
      target.playbookId,
      document,
      target.mode,
      `Imported from ${source}`,
      countersOfFormat(format),
    );
    forgetHead(db, target.playbookId);
  }
  // Embedded PGlite has no autovacuum, so the planner never learns a table grew: after a large import
  // it would plan for one row and look sections up once per bullet. Fresh statistics fix the plans.
  const bullets = document.sections.reduce((sum, section) => sum + section.bullets.length, 0);
  if (bullets >= ANALYZE_AFTER_BULLETS) await repo.refreshStatistics(db);
  return { ...result, warnings };
}

/** mode propose: the playbook is unchanged; the result says which delta waits for review. */
async function proposeInto(
  db: Db,
  who: Who,
  target: { playbookId: string; baseVersion?: number; rationale?: string },
  file: { document: PlaybookDocument; format: PlaybookFormat; source: string },
): Promise<ImportResult> {
  const proposal = await proposeFromFile(db, who, {
    playbookId: target.playbookId,
    ...file,
    baseVersion: target.baseVersion,
    rationale: target.rationale,
  });
  const playbook = await requirePlaybook(db, target.playbookId);
  const [sections, bulletCount] = await Promise.all([
    repo.listSections(db, playbook.id),
    repo.countBullets(db, listBulletsInput.parse({ playbookId: playbook.id, status: "active" })),
  ]);
  return { ...resultOf(playbook, sections.length, bulletCount, playbook.version), proposal };
}

/**
 * POST /api/v1/playbooks/{name}/proposals: an external loop's file, proposed for review against the
 * playbook of that name. The name may arrive still percent-encoded from a URL path.
 */
export async function proposeToNamedPlaybook(
  db: Db,
  who: WhoOrName,
  name: string,
  input: z.output<typeof proposalRequestSchema>,
): Promise<ImportProposal & { playbook: string }> {
  const playbook = (await repo.findPlaybookByName(db, name)) ?? (await repo.findPlaybookByName(db, safeDecode(name)));
  if (!playbook) throw notFound(`The playbook "${name}"`);
  const { format, document } = parseOrExplain(input.content, input.format, input.fileName);
  const proposal = await proposeFromFile(db, who, {
    playbookId: playbook.id,
    document,
    format,
    baseVersion: input.baseVersion,
    rationale: input.rationale,
    source: input.fileName ?? "the posted file",
  });
  return { playbook: playbook.name, ...proposal };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Imports at least this large refresh the planner's statistics (a few ms for 10,000 rows). */
const ANALYZE_AFTER_BULLETS = 1_000;

/**
 * Import into an existing playbook. merge: new sections and ids are added, known ids take the file's
 * content, section and counters (a file without counters keeps the stored ones). replace: the same,
 * and active bullets missing from the file are archived (never deleted, so it can be undone).
 */
async function mergeIntoPlaybook(
  db: Db,
  who: Who,
  playbookId: string,
  document: PlaybookDocument,
  mode: "merge" | "replace",
  reason: string,
  /** The counters the file's format carries; the others keep their stored values (ACE text has no neutral). */
  carried: readonly CounterName[],
): Promise<ImportResult> {
  return db.$transaction(async (tx) => {
    const playbook = await requirePlaybook(tx, playbookId);
    const sections = await repo.listSections(tx, playbookId);
    const states = new Map((await loadBulletStates(tx, playbookId)).map((state) => [state.externalId, state]));
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
      changes.push({ entity: "section", id: row.id, before: null, after: sectionStateOf(row) });
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
          ...fileCounters(bullet.counters, carried),
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
    const nextBulletNumber = Math.max(playbook.nextBulletNumber, highestIdNumber([...inFile]) + 1, (document.lastIdNumber ?? 0) + 1);
    if (!(await repo.bumpVersion(tx, playbookId, playbook.version, { nextBulletNumber }))) {
      throw new AppError("CONFLICT", "The playbook changed while the file was being imported. Nothing was imported; try again.");
    }
    const version = playbook.version + 1;
    await recordVersion(tx, {
      playbookId,
      number: version,
      author: who.actor,
      reason: `${reason}: ${describeCounts(counts)}`,
      changes,
      deltaId: null,
    });
    await recordAudit(tx, who.audit, {
      action: "playbook.import",
      target: { type: "playbook", id: playbookId, label: playbook.name },
      playbookId,
      before: { version: playbook.version },
      after: { version, mode, reason, ...counts },
    });
    const active = activeCount + counts.bulletsAdded - counts.bulletsArchived;
    return resultOf(playbook, sections.length + newSections.length, active, version);
  }, WRITE_TRANSACTION);
}

/** The counters a file sets on a known bullet: those its format carries, when the bullet has any. */
function fileCounters(counters: BulletCounters | null, carried: readonly CounterName[]): Partial<BulletState> {
  if (counters === null || carried.length === 0) return {};
  const taken: Partial<BulletState> = { countersKnown: true };
  for (const name of carried) taken[name] = counters[name];
  return taken;
}

function resultOf(
  playbook: { id: string; name: string; sourceFormat: repo.DbFormat },
  sectionCount: number,
  bulletCount: number,
  version: number,
): ImportResult {
  return {
    playbookId: playbook.id,
    name: playbook.name,
    format: fromDbFormat(playbook.sourceFormat),
    sectionCount,
    bulletCount,
    version,
    warnings: [],
  };
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
  return countsInWords([
    [counts.sectionsAdded, "section added", "sections added"],
    [counts.bulletsAdded, "bullet added", "bullets added"],
    [counts.bulletsUpdated, "bullet updated", "bullets updated"],
    [counts.bulletsArchived, "bullet archived", "bullets archived"],
  ]);
}
