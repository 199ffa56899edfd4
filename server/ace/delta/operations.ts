// Each operation in two steps: check it against the playbook as the earlier operations left it
// (reporting findings), then, only when the engine finds no error for it, apply it. Validation and
// application are therefore one code path and cannot disagree.
import type { BulletState, SectionState } from "../history";
import { formatBulletId, slugForSection } from "../ids";
import type { SimilarityMatch } from "../similarity";
import { describeOperation } from "./messages";
import { placeAt } from "./placement";
import { compareBullets } from "./state";
import { isValidSlug, resolveSection, sectionNamed } from "./sections";
import type {
  AddOperation,
  AddSectionOperation,
  DeltaOperation,
  Finding,
  FindingKind,
  FindingSeverity,
  MergeOperation,
  MoveSectionOperation,
  PinOperation,
  RemoveOperation,
  RemoveSectionOperation,
  RenameSectionOperation,
  RestoreOperation,
  TagOperation,
  UnpinOperation,
  UpdateOperation,
} from "./types";
import { MAX_PINNED_BULLETS } from "./types";
import type { WorkingState } from "./working";

export interface OperationContext {
  working: WorkingState;
  maxContentLength: number;
  newSectionId: () => string;
  report(
    severity: FindingSeverity,
    kind: FindingKind,
    text: string,
    extra?: Pick<Finding, "relatedOperationIndex" | "matchedBulletId" | "similarity" | "suggestion">,
  ): void;
  /**
   * The closest bullets at or above the similarity threshold, ignoring `exclude`: among the bullets
   * this delta leaves as they were (`existing`), and among those an earlier operation of it added or
   * rewrote (`inDelta`, with that operation's index).
   */
  nearDuplicate(content: string, exclude: readonly string[]): { existing: SimilarityMatch | null; inDelta: InDeltaMatch | null };
  /** The delta's operation at a 0-based index. */
  operation(index: number): DeltaOperation | undefined;
  addedIds: string[];
}

/** A bullet an earlier operation of the same delta wrote, and that operation. */
export type InDeltaMatch = SimilarityMatch & { operationIndex: number };

/** Applies the checked operation; null when a check already failed. */
export type Apply = () => void;

export function checkOperation(ctx: OperationContext, op: DeltaOperation): Apply | null {
  switch (op.type) {
    case "add":
      return checkAdd(ctx, op);
    case "update":
      return checkUpdate(ctx, op);
    case "remove":
      return checkRemove(ctx, op);
    case "restore":
      return checkRestore(ctx, op);
    case "merge":
      return checkMerge(ctx, op);
    case "tag":
      return checkTag(ctx, op);
    case "pin":
      return checkPin(ctx, op);
    case "unpin":
      return checkUnpin(ctx, op);
    case "add_section":
      return checkAddSection(ctx, op);
    case "rename_section":
      return checkRenameSection(ctx, op);
    case "move_section":
      return checkMoveSection(ctx, op);
    case "remove_section":
      return checkRemoveSection(ctx, op);
  }
}

// ---- shared checks ---------------------------------------------------------------------------

const COUNTERS = ["helpful", "harmful", "neutral"] as const;

/** Surrounding whitespace is not part of a bullet: the text formats could not keep it anyway. */
function checkContent(ctx: OperationContext, content: string): string | null {
  const trimmed = content.trim();
  if (trimmed === "") {
    ctx.report("error", "empty_content", "the content is empty; write the lesson the bullet should teach");
    return null;
  }
  if (trimmed.length > ctx.maxContentLength) {
    ctx.report(
      "error",
      "content_too_long",
      `the content has ${trimmed.length.toLocaleString("en-US")} characters, over the limit of ${ctx.maxContentLength.toLocaleString("en-US")}; shorten it or split it into several bullets`,
    );
    return null;
  }
  return trimmed;
}

function existingBullet(ctx: OperationContext, id: string): BulletState | null {
  const bullet = ctx.working.bullet(id);
  if (!bullet) ctx.report("error", "unknown_bullet", `there is no bullet [${id}] in this playbook; check the id`);
  return bullet ?? null;
}

function activeBullet(ctx: OperationContext, id: string): BulletState | null {
  const bullet = existingBullet(ctx, id);
  if (bullet?.status === "archived") {
    ctx.report("error", "archived_bullet", `the bullet [${id}] is archived; restore it first or target another bullet`);
    return null;
  }
  return bullet;
}

function existingSection(ctx: OperationContext, ref: string): SectionState | null {
  const section = resolveSection(ctx.working.orderedSections(), ref);
  if (!section) {
    const names = ctx.working.orderedSections().map((known) => `"${known.name}"`);
    const known = names.length > 0 ? `one of ${names.slice(0, 10).join(", ")}` : "a section added first";
    ctx.report("error", "unknown_section", `there is no section "${ref}"; add it first with add_section or use ${known}`);
  }
  return section ?? null;
}

function checkPosition(ctx: OperationContext, position: number): boolean {
  if (Number.isSafeInteger(position) && position >= 0) return true;
  ctx.report("error", "invalid_position", `position ${position} is not a place in the list; use a whole number from 0`);
  return false;
}

/**
 * A near-duplicate of a bullet the playbook has comes with a merge into it. One of what an earlier
 * operation of this delta writes names that operation instead: its bullet may not exist yet, so the
 * advice is to drop one of the two, never a merge.
 */
function warnNearDuplicate(
  ctx: OperationContext,
  content: string,
  exclude: readonly string[],
  suggest: (match: SimilarityMatch) => MergeOperation,
): void {
  const { existing: match, inDelta } = ctx.nearDuplicate(content, exclude);
  if (match) {
    const bullet = ctx.working.bullet(match.bulletId);
    const quote = bullet ? ` ("${excerpt(bullet.content)}")` : "";
    ctx.report(
      "warning",
      "near_duplicate",
      `the content is ${percentOf(match.score)}% similar to [${match.bulletId}]${quote}; consider merging into it instead`,
      { matchedBulletId: match.bulletId, similarity: match.score, suggestion: suggest(match) },
    );
  }
  const earlier = inDelta ? ctx.operation(inDelta.operationIndex) : undefined;
  if (inDelta && earlier) {
    const written = ctx.working.bullet(inDelta.bulletId);
    const quote = written ? ` ("${excerpt(written.content)}")` : "";
    ctx.report(
      "warning",
      "near_duplicate",
      `the content duplicates operation #${inDelta.operationIndex + 1} (${describeOperation(earlier)}), ` +
        `${percentOf(inDelta.score)}% similar to what it writes${quote}; drop this operation or that one`,
      { relatedOperationIndex: inDelta.operationIndex, similarity: inDelta.score },
    );
  }
}

function percentOf(score: number): number {
  return Math.floor(score * 100);
}

function excerpt(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 77)}...`;
}

// ---- bullets ---------------------------------------------------------------------------------

function checkAdd(ctx: OperationContext, op: AddOperation): Apply | null {
  const section = existingSection(ctx, op.section);
  const content = checkContent(ctx, op.content);
  let countersOk = true;
  for (const counter of COUNTERS) {
    const start = op[counter];
    if (start === undefined || (Number.isSafeInteger(start) && start >= 0)) continue;
    ctx.report("error", "invalid_counter", `${counter} must start at a whole number from 0, not ${start}`);
    countersOk = false;
  }
  if (!section || content === null || !countersOk) return null;
  const id = formatBulletId(section.slug, ctx.working.nextIdNumber);
  if (ctx.working.bullet(id)) {
    ctx.report(
      "error",
      "duplicate_id",
      `the new bullet would get the id [${id}], which is taken; the playbook's id counter is behind its bullets`,
    );
    return null;
  }
  // The suggestion folds the new wording into the existing bullet, which keeps its id and counters.
  warnNearDuplicate(ctx, content, [], (match) => ({
    type: "merge",
    bulletIds: [match.bulletId],
    into: match.bulletId,
    content,
  }));
  return () => {
    ctx.working.putBullet({
      externalId: id,
      sectionId: section.id,
      content,
      helpful: op.helpful ?? 0,
      harmful: op.harmful ?? 0,
      neutral: op.neutral ?? 0,
      countersKnown: true,
      status: "active",
      position: ctx.working.endPosition(section.id),
      archivedReason: null,
      mergedInto: null,
    });
    ctx.working.nextIdNumber += 1;
    ctx.addedIds.push(id);
  };
}

function checkUpdate(ctx: OperationContext, op: UpdateOperation): Apply | null {
  const bullet = activeBullet(ctx, op.bulletId);
  const content = op.content === undefined ? undefined : checkContent(ctx, op.content);
  const target = op.section === undefined ? undefined : existingSection(ctx, op.section);
  const positionOk = op.position === undefined || checkPosition(ctx, op.position);
  if (!bullet || content === null || target === null || !positionOk) return null;

  const section = target ?? ctx.working.sectionById(bullet.sectionId);
  const moves = section !== undefined && needsMove(ctx.working, bullet, section.id, op.position);
  const edits = content !== undefined && content !== bullet.content;
  if (!moves && !edits) {
    ctx.report("warning", "no_change", "the update changes nothing: the bullet already has this content and place");
  }
  if (edits) {
    // Keep the existing bullet: it has the history; the updated one's counters join it.
    warnNearDuplicate(ctx, content, [bullet.externalId], (match) => ({
      type: "merge",
      bulletIds: [bullet.externalId, match.bulletId],
      into: match.bulletId,
      content,
    }));
  }
  return () => {
    const edited = edits ? { ...bullet, content } : bullet;
    if (moves && section) placeBullet(ctx.working, edited, section.id, op.position);
    else ctx.working.putBullet(edited);
  };
}

/** Active bullets of a section in reading order, without `exceptId`. */
function activeOthers(working: WorkingState, sectionId: string, exceptId: string): BulletState[] {
  return working.sectionBullets(sectionId).filter((other) => other.externalId !== exceptId && other.status === "active");
}

function needsMove(working: WorkingState, bullet: BulletState, sectionId: string, position: number | undefined): boolean {
  if (sectionId !== bullet.sectionId) return true;
  if (position === undefined) return false;
  const others = activeOthers(working, sectionId, bullet.externalId);
  const current = others.filter((other) => compareBullets(other, bullet) < 0).length;
  return Math.min(position, others.length) !== current;
}

/**
 * `position` counts the section's active bullets, the ones a curator sees: the bullet goes right
 * before the active bullet now at that index (archived ones keep their places), or to the end.
 */
function placeBullet(working: WorkingState, bullet: BulletState, sectionId: string, position: number | undefined): void {
  if (position === undefined) {
    working.putBullet({ ...bullet, sectionId, position: working.endPosition(sectionId) });
    return;
  }
  const others = working.sectionBullets(sectionId).filter((other) => other.externalId !== bullet.externalId);
  const before = activeOthers(working, sectionId, bullet.externalId)[position];
  const index = before ? others.indexOf(before) : others.length;
  const placement = placeAt(others, index, (other) => other.position);
  for (const { item, position: shifted } of placement.shifted) working.putBullet({ ...item, position: shifted });
  working.putBullet({ ...bullet, sectionId, position: placement.position });
}

function checkRemove(ctx: OperationContext, op: RemoveOperation): Apply | null {
  const bullet = existingBullet(ctx, op.bulletId);
  if (bullet?.status === "archived") {
    ctx.report("error", "archived_bullet", `the bullet [${op.bulletId}] is already archived; there is nothing to remove`);
  }
  const reason = op.reason.trim();
  if (reason === "") ctx.report("error", "empty_content", "give a reason a person can read for removing the bullet");
  if (!bullet || bullet.status === "archived" || reason === "") return null;
  return () => ctx.working.putBullet({ ...unpinned(bullet), status: "archived", archivedReason: reason, mergedInto: null });
}

function checkRestore(ctx: OperationContext, op: RestoreOperation): Apply | null {
  const bullet = existingBullet(ctx, op.bulletId);
  if (!bullet) return null;
  if (bullet.status === "active") {
    ctx.report("error", "not_archived", `the bullet [${op.bulletId}] is active; only archived bullets can be restored`);
    return null;
  }
  return () => ctx.working.putBullet({ ...bullet, status: "active", archivedReason: null, mergedInto: null });
}

function checkMerge(ctx: OperationContext, op: MergeOperation): Apply | null {
  const kept = activeBullet(ctx, op.into);
  const sourceIds = [...new Set(op.bulletIds)].filter((id) => id !== op.into);
  const repeated = op.bulletIds.filter((id, index) => op.bulletIds.indexOf(id) !== index);
  if (repeated.length > 0) {
    const ids = [...new Set(repeated)].map((id) => `[${id}]`).join(", ");
    ctx.report("warning", "duplicate_id", `the merge lists ${ids} more than once; each bullet is merged once`);
  }
  const sources = sourceIds.map((id) => activeBullet(ctx, id));
  const content = checkContent(ctx, op.content);
  if (!kept || content === null || sources.some((source) => source === null)) return null;
  const merged = sources.filter((source): source is BulletState => source !== null);

  warnNearDuplicate(ctx, content, [op.into, ...sourceIds], (match) => ({
    ...op,
    bulletIds: [...sourceIds, match.bulletId],
    content,
  }));
  const reason = op.reason?.trim() || `Merged into [${op.into}]`;
  return () => {
    ctx.working.putBullet({ ...kept, content, ...sumCounters([kept, ...merged]) });
    for (const source of merged) {
      ctx.working.putBullet({ ...unpinned(source), status: "archived", archivedReason: reason, mergedInto: op.into });
    }
  };
}

/** A merged bullet has seen every use of the bullets it absorbs; its counters are known if any of theirs were. */
export function sumCounters(bullets: readonly BulletState[]): Pick<BulletState, "helpful" | "harmful" | "neutral" | "countersKnown"> {
  return {
    helpful: bullets.reduce((sum, bullet) => sum + bullet.helpful, 0),
    harmful: bullets.reduce((sum, bullet) => sum + bullet.harmful, 0),
    neutral: bullets.reduce((sum, bullet) => sum + bullet.neutral, 0),
    countersKnown: bullets.some((bullet) => bullet.countersKnown),
  };
}

// Tags are allowed on archived bullets: the reflector may still see an archived bullet cited in a
// trace, and the counts remain its history if it is restored.
function checkTag(ctx: OperationContext, op: TagOperation): Apply | null {
  const bullet = existingBullet(ctx, op.bulletId);
  let valid = true;
  for (const counter of COUNTERS) {
    const increment = op[counter];
    if (increment === undefined || Number.isSafeInteger(increment)) continue;
    ctx.report("error", "invalid_counter", `${counter} must change by a whole number, not ${increment}`);
    valid = false;
  }
  if (!bullet || !valid) return null;
  if (COUNTERS.every((counter) => (op[counter] ?? 0) === 0)) {
    ctx.report("warning", "no_change", "the tag changes no counter");
  }
  const next = { ...bullet, countersKnown: true };
  for (const counter of COUNTERS) {
    next[counter] = bullet[counter] + (op[counter] ?? 0);
    if (next[counter] < 0) {
      ctx.report(
        "error",
        "negative_counter",
        `${counter} would drop to ${next[counter]} (it is ${bullet[counter]}); a counter cannot go below 0`,
      );
      valid = false;
    }
  }
  return valid ? () => ctx.working.putBullet(next) : null;
}

// ---- pins ------------------------------------------------------------------------------------

/** The bullet without its pin: archiving unpins, so a restored bullet never takes a pin past the limit. */
export function unpinned(bullet: BulletState): BulletState {
  if (!bullet.pinned) return bullet;
  const { pinned: _pinned, ...rest } = bullet;
  return rest;
}

function checkPin(ctx: OperationContext, op: PinOperation): Apply | null {
  const bullet = activeBullet(ctx, op.bulletId);
  if (!bullet) return null;
  if (bullet.pinned) {
    ctx.report("warning", "no_change", `the bullet [${op.bulletId}] is already pinned`);
    return null;
  }
  const pinned = ctx.working.pinnedCount();
  if (pinned >= MAX_PINNED_BULLETS) {
    ctx.report(
      "error",
      "pin_limit",
      `the playbook already has ${pinned} pinned bullets, the most a playbook may have (${MAX_PINNED_BULLETS}); unpin one first`,
    );
    return null;
  }
  return () => ctx.working.putBullet({ ...bullet, pinned: true });
}

function checkUnpin(ctx: OperationContext, op: UnpinOperation): Apply | null {
  const bullet = existingBullet(ctx, op.bulletId);
  if (!bullet) return null;
  if (!bullet.pinned) {
    ctx.report("warning", "no_change", `the bullet [${op.bulletId}] is not pinned`);
    return null;
  }
  return () => ctx.working.putBullet(unpinned(bullet));
}

// ---- sections --------------------------------------------------------------------------------

function checkSectionName(ctx: OperationContext, name: string, exceptId?: string): string | null {
  const trimmed = name.trim();
  if (trimmed === "") {
    ctx.report("error", "invalid_name", "the section needs a name");
    return null;
  }
  const existing = sectionNamed(ctx.working.orderedSections(), trimmed, exceptId);
  if (existing) {
    ctx.report("error", "section_exists", `a section named "${existing.name}" already exists; use it or choose another name`);
    return null;
  }
  return trimmed;
}

function checkAddSection(ctx: OperationContext, op: AddSectionOperation): Apply | null {
  const name = checkSectionName(ctx, op.name);
  const slug = op.slug?.trim() || slugForSection(op.name.trim());
  if (!isValidSlug(slug)) {
    ctx.report(
      "error",
      "invalid_slug",
      `the slug "${slug}" cannot start bullet ids; use letters, digits, "_" or "-", beginning with a letter, digit or "_"`,
    );
    return null;
  }
  if (name === null) return null;
  const id = ctx.newSectionId();
  if (ctx.working.sectionById(id)) {
    ctx.report("error", "duplicate_id", `the new section id "${id}" is taken; the section id generator repeated itself`);
    return null;
  }
  return () => {
    const sections = ctx.working.orderedSections();
    const position = (sections.at(-1)?.position ?? -1) + 1;
    ctx.working.putSection({ id, name, slug, position });
  };
}

function checkRenameSection(ctx: OperationContext, op: RenameSectionOperation): Apply | null {
  const section = existingSection(ctx, op.section);
  if (!section) return null;
  const name = checkSectionName(ctx, op.name, section.id);
  if (name === null) return null;
  if (name === section.name) ctx.report("warning", "no_change", `the section is already named "${name}"`);
  return () => ctx.working.putSection({ ...section, name });
}

function checkMoveSection(ctx: OperationContext, op: MoveSectionOperation): Apply | null {
  const section = existingSection(ctx, op.section);
  if (!section || !checkPosition(ctx, op.position)) return null;
  const ordered = ctx.working.orderedSections();
  const others = ordered.filter((other) => other.id !== section.id);
  if (Math.min(op.position, others.length) === ordered.indexOf(section)) {
    ctx.report("warning", "no_change", `the section is already at position ${ordered.indexOf(section)}`);
    return null;
  }
  return () => {
    const placement = placeAt(others, op.position, (other) => other.position);
    for (const { item, position } of placement.shifted) ctx.working.putSection({ ...item, position });
    ctx.working.putSection({ ...section, position: placement.position });
  };
}

function checkRemoveSection(ctx: OperationContext, op: RemoveSectionOperation): Apply | null {
  const section = existingSection(ctx, op.section);
  if (!section) return null;
  const bullets = ctx.working.sectionBullets(section.id);
  const active = bullets.filter((bullet) => bullet.status === "active").length;
  if (active > 0) {
    ctx.report(
      "error",
      "section_not_empty",
      `the section still has ${active} active ${active === 1 ? "bullet" : "bullets"}; move or archive ${active === 1 ? "it" : "them"} first`,
    );
    return null;
  }
  if (bullets.length > 0) {
    const archived = bullets.length;
    ctx.report(
      "error",
      "section_not_empty",
      `the section holds ${archived} archived ${archived === 1 ? "bullet" : "bullets"}, which keep${archived === 1 ? "s" : ""} it as part of ${archived === 1 ? "its" : "their"} history; it can be renamed or moved, not deleted`,
    );
    return null;
  }
  return () => ctx.working.deleteSection(section.id);
}
