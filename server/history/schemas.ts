// The playbook history's wire contract: zod inputs and the shapes procedures return.
// The one file of server/history that client code may import.
import { z } from "zod";
import type { BulletState } from "../ace/history";
import type { PlaybookDiff, TextSegment } from "../ace/diff";
import type { DeltaOperation } from "../ace/delta/types";
import type { DeltaOrigin, DeltaStatus } from "../deltas/schemas";

export type { BulletState, PlaybookDiff, TextSegment };
export type { BulletChanges, CounterChange, EditedBullet, MergedBullet, MovedBullet, RemovedBullet, SectionDiff } from "../ace/diff";

const version = z.number().int().min(1, "Versions count from 1.");

export const versionsInput = z.object({
  playbookId: z.uuid(),
  /** Offset into the versions, newest first. */
  cursor: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(100).default(25),
});

export const atVersionInput = z.object({
  playbookId: z.uuid(),
  version,
  includeArchived: z.boolean().default(false),
});

export const diffVersionsInput = z.object({
  playbookId: z.uuid(),
  from: version,
  to: version,
});

export const rollbackInput = z.object({
  playbookId: z.uuid(),
  version,
  reason: z.string().trim().min(1, "Say why you roll back (it is recorded in the history).").max(2_000),
  /** The version the person was looking at; when set and the playbook moved on, the rollback is refused. */
  expectedVersion: z.number().int().min(0).optional(),
});

export const lineageInput = z.object({
  playbookId: z.uuid(),
  bulletId: z.string().trim().min(1).max(200),
});

// ---- Output shapes ----------------------------------------------------------------------------

/** What a version did, counted from its recorded changes (one bullet can count in several). */
export interface VersionCounts {
  bulletsAdded: number;
  bulletsEdited: number;
  bulletsMoved: number;
  bulletsArchived: number;
  bulletsRestored: number;
  bulletsMerged: number;
  countersChanged: number;
  sectionsAdded: number;
  sectionsRenamed: number;
  sectionsMoved: number;
  sectionsRemoved: number;
}

export interface VersionListItem {
  number: number;
  author: string;
  reason: string;
  createdAt: Date;
  deltaId: string | null;
  /** Where the change came from; null for imports and creation, which write no delta. */
  deltaOrigin: DeltaOrigin | null;
  counts: VersionCounts;
}

export interface VersionPage {
  items: VersionListItem[];
  total: number;
  nextCursor: number | null;
  currentVersion: number;
}

export interface SectionAtVersion {
  id: string;
  name: string;
  slug: string;
  position: number;
  /** Reading order; archived ones only when asked for. */
  bullets: BulletState[];
}

export interface PlaybookAtVersion {
  playbookId: string;
  name: string;
  version: number;
  currentVersion: number;
  author: string;
  reason: string;
  createdAt: Date;
  sections: SectionAtVersion[];
  activeCount: number;
  archivedCount: number;
}

export interface VersionDiff extends PlaybookDiff {
  playbookId: string;
  from: number;
  to: number;
}

export const rollbackResultSchema = z.object({
  playbookId: z.string(),
  /** The new version the rollback wrote. */
  version: z.number().int(),
  rolledBackTo: z.number().int(),
  deltaId: z.string(),
  bulletsChanged: z.number().int(),
  /** Bullets added after the target version: archived (restorable), never deleted. */
  bulletsArchived: z.number().int(),
  sectionsChanged: z.number().int(),
  message: z.string(),
});
export type RollbackResult = z.infer<typeof rollbackResultSchema>;

export const LINEAGE_KINDS = [
  "added",
  "edited",
  "moved",
  "reordered",
  "archived",
  "merged_into",
  "restored",
  "absorbed",
  "counters",
  "pinned",
  "unpinned",
] as const;
export type LineageKind = (typeof LINEAGE_KINDS)[number];

export interface LineageEntry {
  version: number;
  author: string;
  reason: string;
  createdAt: Date;
  deltaId: string | null;
  deltaOrigin: DeltaOrigin | null;
  kinds: LineageKind[];
  before: BulletState | null;
  after: BulletState | null;
  /** Word-level diff when the content changed. */
  segments: TextSegment[] | null;
  /** Bullets merged into this one in that version. */
  absorbed: string[];
}

export interface LineageDelta {
  deltaId: string;
  status: DeltaStatus;
  origin: DeltaOrigin;
  author: string;
  rationale: string;
  createdAt: Date;
  decidedBy: string | null;
  appliedVersion: number | null;
  /** The delta's operations that target this bullet (or created it). */
  operations: { position: number; type: DeltaOperation["type"]; status: "pending" | "approved" | "rejected"; payload: DeltaOperation }[];
}

/** A trace that cited the bullet (its reasoning or output named its id). */
export interface CitingTrace {
  id: string;
  /** The task, up to CITING_TASK_LENGTH characters. */
  task: string;
  outcome: "success" | "failure" | "unknown";
  timestamp: Date;
}

/** The latest traces a bullet's lineage lists; `total` counts them all. */
export const CITING_TRACES_SHOWN = 10;
export const CITING_TASK_LENGTH = 160;

export interface BulletLineage {
  playbookId: string;
  bulletId: string;
  current: BulletState | null;
  currentSectionName: string | null;
  /** Oldest first. */
  entries: LineageEntry[];
  /** Newest first: every delta that proposed or made a change to it, decided or not. */
  deltas: LineageDelta[];
  /** The latest traces that cited it, newest first, and how many did in all. */
  citedBy: { traces: CitingTrace[]; total: number };
}
