// Storing each version's figures (server/ace/version-figures.ts) when the version is written, and
// once, for versions written before figures existed, by replaying their recorded changes.
import type { PlaybookState } from "@/server/ace/delta";
import type { VersionChange } from "@/server/ace/history";
import {
  advanceFigures,
  describeChanges,
  EMPTY_FIGURES,
  figuresOfState,
  type PlaybookFigures,
  type VersionFigures,
} from "@/server/ace/version-figures";
import type { Db, Prisma, Tx } from "@/server/db/client";
import * as historyRepo from "@/server/history/repository";
import * as figuresRepo from "./repositories/figures";

export interface VersionWrite {
  playbookId: string;
  /** The version being written in this transaction. */
  version: number;
  /** The changes recorded with it. */
  changes: readonly VersionChange[];
  /** The playbook's state at this version, when the writer has it (the delta engine does). */
  state?: PlaybookState;
  /** The figures stored with the version before, when the writer has them (the delta engine keeps them). */
  previous?: PlaybookFigures;
}

/**
 * The figures of a version being written, with the INSERT that stores them, to run in its
 * transaction beside the version's own (insertTogether): from the previous version's figures (given,
 * or read) and this version's changes (only the changed bullets are read and counted), or from the
 * state when the previous figures are missing. With neither, null: nothing is stored and the
 * start-up backfill fills the gap.
 */
export async function newVersionFigures(tx: Tx, write: VersionWrite): Promise<{ figures: VersionFigures; insert: Prisma.Sql } | null> {
  const previous =
    write.version <= 1 ? EMPTY_FIGURES : (write.previous ?? (await figuresRepo.findFigures(tx, write.playbookId, write.version - 1)));
  let figures: PlaybookFigures;
  if (previous) figures = advanceFigures(previous, write.changes);
  else if (write.state) figures = figuresOfState(write.state);
  else return null;
  const stored = { ...figures, ...describeChanges(write.changes) };
  return { figures: stored, insert: figuresRepo.newVersionFiguresInsert(write.playbookId, write.version, stored) };
}

/** Versions read and stored per round trip while backfilling. */
const BACKFILL_PAGE = 200;

/**
 * One-time backfill: figures for the versions that have none (written before figures existed),
 * by replaying each playbook's recorded changes onto the figures before them. Idempotent: versions
 * that have figures are left alone, so a second run does nothing. Returns the versions filled.
 */
export async function backfillVersionFigures(db: Db): Promise<{ playbooks: number; versions: number }> {
  const gaps = await figuresRepo.playbooksMissingFigures(db);
  let versions = 0;
  for (const gap of gaps) {
    // The figures just before the first version without any: stored, or empty before version 1.
    const base = gap.firstMissing <= 1 ? EMPTY_FIGURES : await figuresRepo.findFigures(db, gap.playbookId, gap.firstMissing - 1);
    if (!base) {
      console.warn(
        `[metrics] playbook ${gap.playbookId}: version ${gap.firstMissing - 1} has no record to start from; its figures were not backfilled.`,
      );
      continue;
    }
    let figures: PlaybookFigures = base;
    let after = gap.firstMissing - 1;
    while (after < gap.lastVersion) {
      const upTo = Math.min(after + BACKFILL_PAGE, gap.lastVersion);
      const [records, stored] = await Promise.all([
        historyRepo.versionChanges(db, gap.playbookId, after, upTo),
        figuresRepo.versionsWithFigures(db, gap.playbookId, after, upTo),
      ]);
      const rows: { version: number; figures: VersionFigures }[] = [];
      for (const record of records) {
        figures = advanceFigures(figures, record.changes);
        if (!stored.has(record.number)) rows.push({ version: record.number, figures: { ...figures, ...describeChanges(record.changes) } });
      }
      versions += await figuresRepo.insertFigures(db, gap.playbookId, rows);
      after = upTo;
    }
  }
  return { playbooks: gaps.length, versions };
}
