// Writing a version: the history row and the figures the Evolution charts read, always together,
// in the writer's transaction, and the version published to agents' context when it changes more
// than counters. Every path that bumps a playbook's version calls this.
import type { PlaybookState } from "@/server/ace/delta";
import type { PlaybookFigures, VersionFigures } from "@/server/ace/version-figures";
import { publishIfContentChanged } from "@/server/context/publication";
import { insertTogether, type Prisma, type Tx } from "@/server/db/client";
import { newVersionFigures } from "@/server/metrics/figures";
import * as historyRepo from "./repository";

export interface NewVersion extends historyRepo.NewVersionRow {
  /** The playbook's state at this version, when the writer has it (spares reading the previous figures' gaps). */
  state?: PlaybookState;
  /** The figures of the version before, when the writer has them (spares reading them). */
  previousFigures?: PlaybookFigures;
  /** The writer published the version to agents' context itself, with its version bump. */
  published?: boolean;
  /** Other rows of the change to insert with the version, in the same statement (its audit entry). */
  alsoInsert?: Prisma.Sql[];
}

/** Returns the version's figures as stored (null: none could be, see newVersionFigures). */
export async function recordVersion(tx: Tx, version: NewVersion): Promise<VersionFigures | null> {
  const { state, previousFigures, published, alsoInsert = [], ...row } = version;
  const figures = await newVersionFigures(tx, {
    playbookId: row.playbookId,
    version: row.number,
    changes: row.changes,
    state,
    previous: previousFigures,
  });
  await insertTogether(tx, [...alsoInsert, ...(figures ? [figures.insert] : []), historyRepo.versionInsert(row)]);
  if (!published) await publishIfContentChanged(tx, row.playbookId, row.number, row.changes);
  return figures?.figures ?? null;
}
