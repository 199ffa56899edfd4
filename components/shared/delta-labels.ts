// Words, tones and icons for delta origins, statuses and operation types, in one place so the
// queue, the history and the bullet sheet say the same thing.
import { Bot, FileUp, History, ScanSearch, Scissors, SquareTerminal, User, type LucideIcon } from "lucide-react";
import type { BadgeTone } from "@/components/ui/badge";
import { plural, pluralWord } from "@/components/ui/format";
import type { DeltaListItem, DeltaOperation, DeltaOperationType, DeltaOrigin, DeltaStatus } from "@/server/deltas/schemas";
import type { ReviewFilters, ReviewStatus } from "./review-url";

/** label: the badge and the origin filter; source: who made it, after "from" in a sentence. */
export const ORIGIN_META: Record<DeltaOrigin, { label: string; source: string; tone: BadgeTone; icon: LucideIcon }> = {
  reflector: { label: "Reflector tags", source: "the reflector", tone: "accent", icon: ScanSearch },
  curator: { label: "Curator run", source: "the curator", tone: "accent", icon: Bot },
  pruning: { label: "Pruning", source: "pruning", tone: "amber", icon: Scissors },
  import: { label: "Import", source: "imports", tone: "gray", icon: FileUp },
  person: { label: "Person", source: "people", tone: "blue", icon: User },
  rollback: { label: "Rollback", source: "rollbacks", tone: "gray", icon: History },
  agent: { label: "Coding agent", source: "coding agents", tone: "blue", icon: SquareTerminal },
};

export const STATUS_FILTER_LABELS: Record<ReviewStatus, string> = {
  pending: "Pending",
  stale: "Stale",
  applied: "Applied",
  auto_applied: "Auto-applied",
  rejected: "Rejected",
  all: "All",
};

/** "pending deltas", "delta" (for "all"), "applied deltas from the curator": the words after a count in the queue. */
export function deltasIn({ status, origin }: ReviewFilters, count: number): string {
  const noun = pluralWord(count, "delta");
  const words = status === "all" ? noun : `${STATUS_FILTER_LABELS[status].toLowerCase()} ${noun}`;
  return origin ? `${words} from ${ORIGIN_META[origin].source}` : words;
}

/** What a delta's badge says: "stale" is a pending delta whose targets changed since. */
export type DeltaState = DeltaStatus | "stale";

export const STATE_META: Record<DeltaState, { label: string; tone: BadgeTone }> = {
  pending: { label: "Pending", tone: "blue" },
  stale: { label: "Stale", tone: "amber" },
  applied: { label: "Applied", tone: "green" },
  auto_applied: { label: "Auto-applied", tone: "accent" },
  rejected: { label: "Rejected", tone: "red" },
};

export function deltaState(delta: Pick<DeltaListItem, "status" | "flags">): DeltaState {
  return delta.status === "pending" && delta.flags.stale ? "stale" : delta.status;
}

/**
 * The counters an added bullet starts with, as a reviewer reads them: "+3 helpful / −1 harmful" (an
 * external loop's counts, carried by its proposal); null when it starts at 0.
 */
export function startingCounters(op: DeltaOperation): string | null {
  if (op.type !== "add") return null;
  const parts = [
    op.helpful ? `+${op.helpful} helpful` : null,
    op.harmful ? `−${op.harmful} harmful` : null,
    op.neutral ? `${op.neutral} neutral` : null,
  ].filter((part) => part !== null);
  return parts.length > 0 ? parts.join(" / ") : null;
}

export const OPERATION_LABELS: Record<DeltaOperationType, string> = {
  add: "Add",
  update: "Update",
  remove: "Archive",
  restore: "Restore",
  merge: "Merge",
  tag: "Counters",
  pin: "Pin",
  unpin: "Unpin",
  add_section: "Add section",
  rename_section: "Rename section",
  move_section: "Move section",
  remove_section: "Delete section",
};

/** "2 add · 1 update" from the per-type counts the list returns. */
export function describeTypes(types: Partial<Record<DeltaOperationType, number>>): string {
  return Object.entries(types)
    .map(([type, count]) => `${count} ${OPERATION_LABELS[type as DeltaOperationType].toLowerCase()}`)
    .join(" · ");
}

/**
 * What a delta is, for its heading and its row when it has no rationale: pruning says what it
 * prunes (whoever pressed the button), the others whose proposal it is.
 */
export function deltaTitle(delta: Pick<DeltaListItem, "origin" | "author" | "counts" | "types">): string {
  switch (delta.origin) {
    case "pruning":
      return `Pruning: ${plural(delta.types.remove ?? delta.counts.total, "bullet")} to archive`;
    case "rollback":
      return `Rollback by ${delta.author}`;
    case "reflector":
      return `Counter tags from ${delta.author}`;
    default:
      return `${plural(delta.counts.total, "operation")} from ${delta.author}`;
  }
}
