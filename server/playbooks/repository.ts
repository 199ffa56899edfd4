// Every database call of the playbook domain. Returns plain rows; rules live in service.ts.
import { Prisma, type Db, type Tx } from "@/server/db/client";
import type { BulletSignal } from "@/server/ace/signals";
import type { BulletState, SectionState } from "@/server/ace/history";
import type { z } from "zod";
import type { listBulletsInput } from "./schemas";

type DbOrTx = Db | Tx;
type ListBulletsQuery = z.output<typeof listBulletsInput>;

export const DB_FORMAT = { ace: "ace", "ace-plain": "ace_plain", kayba: "kayba", json: "json" } as const;
export type DbFormat = (typeof DB_FORMAT)[keyof typeof DB_FORMAT];

export function listPlaybooks(db: DbOrTx) {
  return db.playbook.findMany({
    orderBy: { updatedAt: "desc" },
    select: {
      id: true,
      name: true,
      description: true,
      agentLabel: true,
      sourceFormat: true,
      version: true,
      updatedAt: true,
      _count: { select: { sections: true, bullets: { where: { status: "active" } } } },
    },
  });
}

const playbookFields = {
  id: true,
  name: true,
  description: true,
  agentLabel: true,
  sourceFormat: true,
  formatHints: true,
  settings: true,
  version: true,
  nextBulletNumber: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.PlaybookSelect;

export function findPlaybook(db: DbOrTx, playbookId: string) {
  return db.playbook.findUnique({ where: { id: playbookId }, select: playbookFields });
}

export function findPlaybookByName(db: DbOrTx, name: string) {
  return db.playbook.findUnique({ where: { name }, select: playbookFields });
}

export function listSections(db: DbOrTx, playbookId: string) {
  return db.section.findMany({
    where: { playbookId },
    orderBy: { position: "asc" },
    select: { id: true, name: true, slug: true, position: true, blankLinesBefore: true },
  });
}

export async function activeCountsBySection(db: DbOrTx, playbookId: string): Promise<Map<string, number>> {
  const groups = await db.bullet.groupBy({
    by: ["sectionId"],
    where: { playbookId, status: "active" },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.sectionId, group._count._all]));
}

/** Counter combinations of a playbook's bullets with how many bullets share each; classified by the caller. */
export function counterGroups(db: DbOrTx, playbookId: string) {
  return db.bullet.groupBy({
    by: ["status", "helpful", "harmful", "countersKnown"],
    where: { playbookId },
    _count: { _all: true },
  });
}

// The SQL twin of classifyBullet (server/ace/signals.ts); an integration test keeps them in step.
const SIGNAL_SQL: Record<BulletSignal, Prisma.Sql> = {
  untracked: Prisma.sql`NOT b."countersKnown"`,
  high_performing: Prisma.sql`(b."countersKnown" AND b.helpful > 5 AND b.harmful < 2)`,
  problematic: Prisma.sql`(b."countersKnown" AND b.harmful > 0 AND b.harmful >= b.helpful)`,
  unused: Prisma.sql`(b."countersKnown" AND b.helpful = 0 AND b.harmful = 0)`,
  in_use: Prisma.sql`(b."countersKnown" AND b.helpful + b.harmful > 0
    AND NOT (b.helpful > 5 AND b.harmful < 2) AND NOT (b.harmful > 0 AND b.harmful >= b.helpful))`,
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

const DEFAULT_DIRECTION: Record<ListBulletsQuery["sort"], "asc" | "desc"> = {
  position: "asc",
  id: "asc",
  helpful: "desc",
  harmful: "desc",
  score: "desc",
  recent: "desc",
};

function orderBy(query: ListBulletsQuery): Prisma.Sql {
  const dir = (query.direction ?? DEFAULT_DIRECTION[query.sort]) === "asc" ? Prisma.sql`ASC` : Prisma.sql`DESC`;
  // Ties fall back to reading order so paging is stable.
  const reading = Prisma.sql`s.position ASC, b.position ASC, b."externalId" ASC`;
  switch (query.sort) {
    case "position":
      return Prisma.sql`s.position ${dir}, b.position ${dir}, b."externalId" ${dir}`;
    case "id":
      return Prisma.sql`b."externalId" ${dir}`;
    case "helpful":
      return Prisma.sql`b.helpful ${dir}, ${reading}`;
    case "harmful":
      return Prisma.sql`b.harmful ${dir}, ${reading}`;
    case "score":
      return Prisma.sql`(b.helpful - b.harmful) ${dir}, ${reading}`;
    case "recent":
      return Prisma.sql`b."updatedAt" ${dir}, ${reading}`;
  }
}

export interface BulletListRow {
  id: string;
  externalId: string;
  sectionId: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
  countersKnown: boolean;
  status: "active" | "archived";
  updatedAt: Date;
  total: bigint;
}

/** One query: filtered, sorted, paged, with the filtered total on every row. */
export function listBullets(db: DbOrTx, query: ListBulletsQuery): Promise<BulletListRow[]> {
  const where: Prisma.Sql[] = [Prisma.sql`b."playbookId" = ${query.playbookId}::uuid`];
  if (query.status !== "all") where.push(Prisma.sql`b.status = ${query.status}::"BulletStatus"`);
  if (query.search) {
    const pattern = `%${escapeLike(query.search)}%`;
    const idPattern = `%${escapeLike(query.search.replace(/^\[|\]$/g, ""))}%`;
    where.push(Prisma.sql`(b.content ILIKE ${pattern} OR b."externalId" ILIKE ${idPattern})`);
  }
  if (query.sectionIds?.length) {
    where.push(Prisma.sql`b."sectionId" IN (${Prisma.join(query.sectionIds.map((id) => Prisma.sql`${id}::uuid`))})`);
  }
  if (query.signals?.length) {
    where.push(Prisma.sql`(${Prisma.join(query.signals.map((signal) => SIGNAL_SQL[signal]), " OR ")})`);
  }
  return db.$queryRaw<BulletListRow[]>`
    SELECT b.id, b."externalId", b."sectionId", b.content, b.helpful, b.harmful, b.neutral,
           b."countersKnown", b.status::text AS status, b."updatedAt", COUNT(*) OVER () AS total
    FROM "Bullet" b JOIN "Section" s ON s.id = b."sectionId"
    WHERE ${Prisma.join(where, " AND ")}
    ORDER BY ${orderBy(query)}
    LIMIT ${query.limit} OFFSET ${query.cursor}`;
}

export function findBullet(db: DbOrTx, playbookId: string, externalId: string) {
  return db.bullet.findUnique({
    where: { playbookId_externalId: { playbookId, externalId } },
    select: {
      id: true,
      externalId: true,
      sectionId: true,
      content: true,
      helpful: true,
      harmful: true,
      neutral: true,
      countersKnown: true,
      status: true,
      origin: true,
      sourceTraceId: true,
      sourceRunId: true,
      justification: true,
      evidence: true,
      archivedReason: true,
      mergedInto: true,
      createdAt: true,
      updatedAt: true,
      section: { select: { name: true } },
    },
  });
}

export function listBulletsForExport(db: DbOrTx, playbookId: string) {
  return db.bullet.findMany({
    where: { playbookId },
    orderBy: [{ position: "asc" }, { externalId: "asc" }],
    select: {
      externalId: true,
      sectionId: true,
      content: true,
      helpful: true,
      harmful: true,
      neutral: true,
      countersKnown: true,
      status: true,
      position: true,
      origin: true,
      sourceTraceId: true,
      sourceRunId: true,
      justification: true,
      evidence: true,
      archivedReason: true,
      mergedInto: true,
      extra: true,
      blankLinesBefore: true,
      createdAt: true,
      updatedAt: true,
    },
  });
}
export type ExportBulletRow = Awaited<ReturnType<typeof listBulletsForExport>>[number];

/** The current state of every bullet, in the shape versions record. */
export async function loadBulletStates(db: DbOrTx, playbookId: string): Promise<BulletState[]> {
  const rows = await db.bullet.findMany({
    where: { playbookId },
    select: {
      externalId: true,
      sectionId: true,
      content: true,
      helpful: true,
      harmful: true,
      neutral: true,
      countersKnown: true,
      status: true,
      position: true,
      archivedReason: true,
      mergedInto: true,
    },
  });
  return rows;
}

export interface NewPlaybookRow {
  id: string;
  name: string;
  description: string;
  agentLabel: string;
  settings: Prisma.InputJsonValue;
  sourceFormat: DbFormat;
  formatHints: Prisma.InputJsonValue;
  nextBulletNumber: number;
  version: number;
}

export function insertPlaybook(tx: Tx, row: NewPlaybookRow) {
  return tx.playbook.create({ data: row, select: { id: true, name: true } });
}

export function insertSections(tx: Tx, playbookId: string, sections: (SectionState & { blankLinesBefore: number })[]) {
  if (sections.length === 0) return Promise.resolve({ count: 0 });
  return tx.section.createMany({ data: sections.map((section) => ({ ...section, playbookId })) });
}

export type NewBulletRow = Omit<Prisma.BulletCreateManyInput, "playbookId">;

export function insertBullets(tx: Tx, playbookId: string, bullets: NewBulletRow[]) {
  if (bullets.length === 0) return Promise.resolve({ count: 0 });
  return tx.bullet.createMany({ data: bullets.map((bullet) => ({ ...bullet, playbookId })) });
}

export function updateBullet(tx: Tx, playbookId: string, externalId: string, data: Prisma.BulletUpdateInput) {
  return tx.bullet.update({ where: { playbookId_externalId: { playbookId, externalId } }, data, select: { id: true } });
}

/**
 * Moves the playbook from `expectedVersion` to the next one; returns false when another change got
 * there first (optimistic concurrency: the caller aborts its transaction).
 */
export async function bumpVersion(
  tx: Tx,
  playbookId: string,
  expectedVersion: number,
  data: Omit<Prisma.PlaybookUpdateManyMutationInput, "version"> = {},
): Promise<boolean> {
  const { count } = await tx.playbook.updateMany({
    where: { id: playbookId, version: expectedVersion },
    data: { ...data, version: { increment: 1 } },
  });
  return count === 1;
}

export function insertVersion(
  tx: Tx,
  row: { playbookId: string; number: number; author: string; reason: string; operations: Prisma.InputJsonValue; deltaId?: string },
) {
  return tx.playbookVersion.create({ data: row, select: { id: true, number: true } });
}

export function countPlaybooks(db: DbOrTx) {
  return db.playbook.count();
}
