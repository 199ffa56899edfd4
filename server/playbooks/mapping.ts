// Conversions between stored rows and the ACE core's PlaybookDocument / version states.
import { randomUUID } from "node:crypto";
import { countersOf, type BulletDoc, type PlaybookDocument, type PlaybookFormat } from "@/server/ace/document";
import { defaultSectionGap } from "@/server/ace/formats/ace-text";
import { countBulletTokens } from "@/server/ace/tokens";
import type { BulletState, SectionState } from "@/server/ace/history";
import type { ExportBulletExtras } from "./repositories/bullet-states";
import { DB_FORMAT, type DbFormat, type NewBulletRow } from "./repository";

export function toDbFormat(format: PlaybookFormat): DbFormat {
  return DB_FORMAT[format];
}

export function fromDbFormat(format: DbFormat): PlaybookFormat {
  return format === "ace_plain" ? "ace-plain" : format;
}

export interface NewSectionRow extends SectionState {
  blankLinesBefore: number;
}

/** A new section row as the version record stores it (its layout is not part of the state). */
export function sectionStateOf(section: NewSectionRow): SectionState {
  return { id: section.id, name: section.name, slug: section.slug, position: section.position };
}

export interface NewBulletRowWithState {
  row: NewBulletRow;
  state: BulletState;
}

function dateOrUndefined(iso: string | undefined): Date | undefined {
  if (iso === undefined) return undefined;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

export function stateOfRow(row: NewBulletRow): BulletState {
  const state: BulletState = {
    externalId: row.externalId,
    sectionId: row.sectionId,
    content: row.content,
    helpful: row.helpful,
    harmful: row.harmful,
    neutral: row.neutral,
    countersKnown: row.countersKnown,
    status: row.status,
    position: row.position,
    archivedReason: row.archivedReason,
    mergedInto: row.mergedInto,
  };
  if (row.pinned) state.pinned = true;
  return state;
}

/** A new row for a bullet of a parsed document, written by `version`; origin defaults to "import". */
export function bulletRowFromDoc(bullet: BulletDoc, sectionId: string, position: number, version: number): NewBulletRow {
  return {
    id: randomUUID(),
    sectionId,
    externalId: bullet.id,
    content: bullet.content,
    ...countersOf(bullet),
    status: bullet.status,
    archivedReason: bullet.archivedReason ?? null,
    mergedInto: bullet.mergedInto ?? null,
    position,
    origin: bullet.origin ?? "import",
    sourceTraceId: bullet.sourceTraceId ?? null,
    sourceRunId: bullet.sourceRunId ?? null,
    justification: bullet.justification ?? null,
    evidence: bullet.evidence ?? null,
    extra: bullet.extra ?? null,
    blankLinesBefore: bullet.blankLinesBefore ?? 0,
    changedInVersion: version,
    tokenCount: countBulletTokens({ externalId: bullet.id, content: bullet.content, ...countersOf(bullet) }),
    // An archived bullet is never pinned (archiving unpins).
    pinned: bullet.pinned === true && bullet.status === "active",
    createdAt: dateOrUndefined(bullet.createdAt),
    updatedAt: dateOrUndefined(bullet.updatedAt),
  };
}

/** Rows for a whole document going into a new playbook (its version 1), in reading order. */
export function rowsFromDocument(doc: PlaybookDocument): { sections: NewSectionRow[]; bullets: NewBulletRowWithState[] } {
  const sections: NewSectionRow[] = [];
  const bullets: NewBulletRowWithState[] = [];
  doc.sections.forEach((section, sectionIndex) => {
    const sectionId = randomUUID();
    sections.push({
      id: sectionId,
      name: section.name,
      slug: section.slug,
      position: sectionIndex,
      blankLinesBefore: section.blankLinesBefore ?? defaultSectionGap(sectionIndex),
    });
    section.bullets.forEach((bullet, bulletIndex) => {
      const row = bulletRowFromDoc(bullet, sectionId, bulletIndex, 1);
      bullets.push({ row, state: stateOfRow(row) });
    });
  });
  return { sections, bullets };
}

function bulletDocOf(state: BulletState, extras: ExportBulletExtras): BulletDoc {
  const doc: BulletDoc = {
    id: state.externalId,
    content: state.content,
    counters: state.countersKnown ? { helpful: state.helpful, harmful: state.harmful, neutral: state.neutral } : null,
    status: state.status,
    createdAt: extras.createdAt,
    updatedAt: extras.updatedAt,
    origin: extras.origin,
  };
  if (extras.justification !== null) doc.justification = extras.justification;
  if (extras.evidence !== null) doc.evidence = extras.evidence;
  if (state.archivedReason !== null) doc.archivedReason = state.archivedReason;
  if (state.mergedInto !== null) doc.mergedInto = state.mergedInto;
  if (state.pinned) doc.pinned = true;
  if (extras.sourceTraceId !== null) doc.sourceTraceId = extras.sourceTraceId;
  if (extras.sourceRunId !== null) doc.sourceRunId = extras.sourceRunId;
  if (extras.blankLinesBefore > 0) doc.blankLinesBefore = extras.blankLinesBefore;
  if (extras.extra !== null && typeof extras.extra === "object" && !Array.isArray(extras.extra)) {
    doc.extra = extras.extra as Record<string, unknown>;
  }
  return doc;
}

export interface StoredPlaybook {
  name: string;
  description: string;
  agentLabel: string;
  settings: unknown;
  formatHints: unknown;
  nextBulletNumber: number;
}

/**
 * The document of the playbook's sections and bullets, the bullets in reading order: rows read whole
 * are their own extras; the delta engine's cached states take theirs from the map an export keeps.
 */
export function documentFromRows<B extends BulletState>(
  playbook: StoredPlaybook,
  sections: { id: string; name: string; slug: string; blankLinesBefore: number }[],
  bullets: readonly B[],
  extrasOf: (bullet: B) => ExportBulletExtras,
): PlaybookDocument {
  const bySection = new Map<string, BulletDoc[]>(sections.map((section) => [section.id, []]));
  for (const bullet of bullets) bySection.get(bullet.sectionId)?.push(bulletDocOf(bullet, extrasOf(bullet)));
  return {
    name: playbook.name,
    description: playbook.description,
    agentLabel: playbook.agentLabel,
    settings: isRecord(playbook.settings) ? playbook.settings : {},
    lastIdNumber: playbook.nextBulletNumber - 1,
    hints: isRecord(playbook.formatHints) ? playbook.formatHints : {},
    sections: sections.map((section) => ({
      name: section.name,
      slug: section.slug,
      bullets: bySection.get(section.id) ?? [],
      blankLinesBefore: section.blankLinesBefore,
    })),
  };
}

function isRecord(value: unknown): value is Record<string, never> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
