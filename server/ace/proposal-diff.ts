// A playbook evolved outside ACE Studio (the ACE authors' code, kayba, the LangChain ACE middleware)
// compared with the version that loop started from, as the delta operations that make the same
// changes to the playbook as it is now: a three-way diff (base, current, file). What ACE Studio changed
// since the base is kept; a bullet both sides changed is reported as a conflict. Pure.
import type { BulletDoc, PlaybookDocument, PlaybookFormat, SectionDoc } from "./document";
import { sectionKey } from "./delta/sections";
import { orderedBullets } from "./delta/state";
import type { AddOperation, DeltaOperation, MergeOperation, PlaybookState } from "./delta/types";
import type { BulletState, SectionState } from "./history";

export const COUNTER_NAMES = ["helpful", "harmful", "neutral"] as const;
export type CounterName = (typeof COUNTER_NAMES)[number];

/**
 * The counters a file in this format carries: ACE text has no neutral counter, `ace-plain` none.
 * A bullet parsed without counters (current kayba) carries none whatever the format.
 */
export function countersOfFormat(format: PlaybookFormat): readonly CounterName[] {
  switch (format) {
    case "ace":
      return ["helpful", "harmful"];
    case "ace-plain":
      return [];
    case "kayba":
    case "json":
      return COUNTER_NAMES;
  }
}

export interface ProposalDiffInput {
  /** The playbook at the version the external loop started from. */
  base: PlaybookState;
  /** The playbook now. */
  current: PlaybookState;
  /** The loop's file, parsed. */
  file: PlaybookDocument;
  /** The counters the file's format carries (countersOfFormat); the others are left as they are. */
  counters: readonly CounterName[];
  baseVersion: number;
  /** How rationales name the file, e.g. "skillbook.json". */
  source: string;
}

/** A file's changes never need a merge: two bullets folded into one read as an edit and a removal. */
export type FileOperation = Exclude<DeltaOperation, MergeOperation>;

export interface ProposedOperation {
  operation: FileOperation;
  /** Why, for the reviewer; a conflict is said here too. */
  rationale: string;
}

/** A bullet or section that changed in ACE Studio after the base version and in the file too. */
export interface ProposalConflict {
  /** The bullet's external id, or the section's id. */
  target: string;
  /** "[str-00003]" or 'Section "tools"'. */
  label: string;
  message: string;
}

export interface ProposalCounts {
  sectionsAdded: number;
  sectionsRenamed: number;
  added: number;
  updated: number;
  removed: number;
  restored: number;
  tagged: number;
}

export interface ProposalDiff {
  operations: ProposedOperation[];
  conflicts: ProposalConflict[];
  counts: ProposalCounts;
  /** Changes of the file the playbook already has (made in ACE Studio as well): nothing to propose for them. */
  alreadyApplied: number;
}

export function diffProposal(input: ProposalDiffInput): ProposalDiff {
  const { base, current, file, source, baseVersion } = input;
  const sectionOps: ProposedOperation[] = [];
  const addedSectionOps: ProposedOperation[] = [];
  const bulletOps: ProposedOperation[] = [];
  const removeOps: ProposedOperation[] = [];
  const conflicts: ProposalConflict[] = [];
  const counts: ProposalCounts = { sectionsAdded: 0, sectionsRenamed: 0, added: 0, updated: 0, removed: 0, restored: 0, tagged: 0 };
  let alreadyApplied = 0;

  // ---- Sections: matched to the base by name, or by the bullets a renamed one kept ----------------
  const matched = matchSections(base, file.sections);
  const currentById = new Map(current.sections.map((section) => [section.id, section]));
  /** What operations call each file section by, once the delta's renames and additions are applied. */
  const targetNames: string[] = [];
  /** Current sections this delta renames (their old names are free) or that a file section maps to. */
  const claimed = new Set<string>();
  const renamedAway = new Set<string>();
  const sectionsNow = (): SectionState[] => current.sections.filter((section) => !renamedAway.has(section.id));
  for (const [index, section] of file.sections.entries()) {
    const baseSection = base.sections.find((candidate) => candidate.id === matched[index]);
    const now = baseSection ? currentById.get(baseSection.id) : undefined;
    if (!baseSection || !now) continue;
    claimed.add(now.id);
    targetNames[index] = now.name;
    if (section.name === baseSection.name) continue;
    if (now.name === section.name) {
      alreadyApplied += 1;
      continue;
    }
    let conflict = "";
    if (now.name !== baseSection.name) {
      conflict = ` Conflict: ACE Studio renamed it to "${now.name}" after version ${baseVersion}.`;
      conflicts.push({
        target: now.id,
        label: `Section "${now.name}"`,
        message:
          `Section "${baseSection.name}" was renamed to "${now.name}" in ACE Studio after version ${baseVersion}, ` +
          `and to "${section.name}" in ${source}.`,
      });
    }
    sectionOps.push({
      operation: { type: "rename_section", section: now.name, name: section.name },
      rationale: `Renamed in ${source}: "${baseSection.name}" → "${section.name}".${conflict}`,
    });
    counts.sectionsRenamed += 1;
    renamedAway.add(now.id);
    targetNames[index] = section.name;
  }
  for (const [index, section] of file.sections.entries()) {
    if (targetNames[index] !== undefined) continue;
    // A section ACE Studio has under the same name (added there too, or matched by the engine's rules).
    const key = sectionKey(section.name);
    const existing = sectionsNow().find((candidate) => !claimed.has(candidate.id) && sectionKey(candidate.name) === key);
    if (existing) {
      claimed.add(existing.id);
      targetNames[index] = existing.name;
      alreadyApplied += 1;
      continue;
    }
    addedSectionOps.push({
      operation: { type: "add_section", name: section.name, slug: section.slug },
      rationale: `New section in ${source}.`,
    });
    counts.sectionsAdded += 1;
    targetNames[index] = section.name;
  }

  // ---- Bullets the file has ---------------------------------------------------------------------------
  const activeContents = new Set(
    [...current.bullets.values()].filter((bullet) => bullet.status === "active").map((bullet) => bullet.content.trim()),
  );
  const inFile = new Set<string>();
  /** Records a conflict when ACE Studio changed the bullet too, and says so in the operations' rationales. */
  const conflictOf = (was: BulletState, now: BulletState, what: string, proposed: ProposedOperation[]) => {
    const studio = studioChanges(was, now);
    if (studio.length === 0) return;
    for (const entry of proposed) {
      entry.rationale += ` Conflict: ACE Studio changed this bullet too after version ${baseVersion} (${studio.join(", ")}).`;
    }
    conflicts.push({
      target: now.externalId,
      label: `[${now.externalId}]`,
      message:
        `[${now.externalId}] changed in ACE Studio after version ${baseVersion} (${studio.join(", ")}) ` +
        `and in ${source} (${what}); review it against the current bullet.`,
    });
  };

  for (const [index, section] of file.sections.entries()) {
    const targetName = targetNames[index] as string;
    for (const bullet of section.bullets) {
      if (inFile.has(bullet.id)) continue;
      inFile.add(bullet.id);
      const was = base.bullets.get(bullet.id);
      const now = current.bullets.get(bullet.id);
      if (!was || !now) {
        const add = addFor(bullet, targetName, input, activeContents);
        if (add === "present") alreadyApplied += 1;
        else if (add) {
          bulletOps.push(add);
          counts.added += 1;
          activeContents.add(bullet.content.trim());
        }
        continue;
      }
      const changes = changesFor({ bullet, was, now, sectionBaseId: matched[index], targetName, input, current });
      alreadyApplied += changes.alreadyApplied;
      if (changes.operations.length === 0) continue;
      bulletOps.push(...changes.operations);
      for (const { operation } of changes.operations) {
        if (operation.type === "update") counts.updated += 1;
        else if (operation.type === "remove") counts.removed += 1;
        else if (operation.type === "restore") counts.restored += 1;
        else if (operation.type === "tag") counts.tagged += 1;
      }
      conflictOf(was, now, changes.what.join(", "), changes.operations);
    }
  }

  // ---- Bullets the file no longer has -------------------------------------------------------------------
  for (const was of orderedBullets(base)) {
    if (inFile.has(was.externalId) || was.status !== "active") continue;
    const now = current.bullets.get(was.externalId);
    if (!now || now.status === "archived") {
      alreadyApplied += 1;
      continue;
    }
    const remove: ProposedOperation = {
      operation: { type: "remove", bulletId: was.externalId, reason: `Not in ${source}: the external loop removed it.` },
      rationale: `In version ${baseVersion}, not in ${source}.`,
    };
    removeOps.push(remove);
    counts.removed += 1;
    conflictOf(was, now, "removed", [remove]);
  }

  return {
    operations: [...sectionOps, ...addedSectionOps, ...bulletOps, ...removeOps],
    conflicts,
    counts,
    alreadyApplied,
  };
}

// ---- Sections ---------------------------------------------------------------------------------------

/**
 * For each file section, the base section it is (its id), or undefined for a new one: the same name
 * first; then a renamed section, recognised by the bullets it kept (the base section most of its
 * known bullets come from); then a name that differs only in case, spaces or underscores.
 */
function matchSections(base: PlaybookState, sections: readonly SectionDoc[]): (string | undefined)[] {
  const matched: (string | undefined)[] = sections.map(() => undefined);
  const taken = new Set<string>();
  const claim = (index: number, section: SectionState | undefined) => {
    if (!section) return;
    matched[index] = section.id;
    taken.add(section.id);
  };
  sections.forEach((section, index) =>
    claim(
      index,
      base.sections.find((b) => b.name === section.name && !taken.has(b.id)),
    ),
  );
  sections.forEach((section, index) => {
    if (matched[index] !== undefined) return;
    const votes = new Map<string, number>();
    for (const bullet of section.bullets) {
      const was = base.bullets.get(bullet.id);
      if (was && !taken.has(was.sectionId)) votes.set(was.sectionId, (votes.get(was.sectionId) ?? 0) + 1);
    }
    // Most votes; a tie goes to the earlier base section.
    const best = base.sections.filter((b) => (votes.get(b.id) ?? 0) > 0).sort((a, b) => (votes.get(b.id) ?? 0) - (votes.get(a.id) ?? 0))[0];
    claim(index, best);
  });
  sections.forEach((section, index) => {
    if (matched[index] !== undefined) return;
    const key = sectionKey(section.name);
    claim(
      index,
      base.sections.find((b) => !taken.has(b.id) && sectionKey(b.name) === key),
    );
  });
  return matched;
}

// ---- Bullets ---------------------------------------------------------------------------------------------

/** What ACE Studio changed in a bullet between the base version and now (a shift among neighbours aside). */
function studioChanges(was: BulletState, now: BulletState): string[] {
  const changes: string[] = [];
  if (was.content.trim() !== now.content.trim()) changes.push("content");
  if (was.sectionId !== now.sectionId) changes.push("section");
  if (was.status !== now.status) changes.push(now.status === "archived" ? "archived" : "restored");
  if (COUNTER_NAMES.some((counter) => was[counter] !== now[counter])) changes.push("counters");
  return changes;
}

/**
 * A new bullet of the file: an add to its section, or "present" when an active bullet already says the
 * same. It starts with the counters the loop gave it, those the file's format carries (none for
 * ace-plain or current kayba: it starts at 0); a zero is left out, as the engine's default.
 */
function addFor(
  bullet: BulletDoc,
  targetName: string,
  input: ProposalDiffInput,
  activeContents: ReadonlySet<string>,
): ProposedOperation | "present" | null {
  if (bullet.status !== "active") return null;
  const content = bullet.content.trim();
  if (activeContents.has(content)) return "present";
  const operation: AddOperation = { type: "add", section: targetName, content };
  const carried: string[] = [];
  for (const counter of carriedCounters(bullet, input.counters)) {
    const count = bullet.counters?.[counter] ?? 0;
    if (count === 0) continue;
    operation[counter] = count;
    carried.push(`${counter}=${count}`);
  }
  const note = carried.length > 0 ? ` It keeps its counters there (${carried.join(", ")}).` : "";
  return {
    operation,
    rationale: `New in ${input.source} as [${bullet.id}]; it gets the next id of this playbook.${note}`,
  };
}

function carriedCounters(bullet: BulletDoc, counters: readonly CounterName[]): readonly CounterName[] {
  return bullet.counters === null ? [] : counters;
}

interface BulletChanges {
  operations: ProposedOperation[];
  /** What the file changed, in words, for a conflict's message. */
  what: string[];
  alreadyApplied: number;
}

/** A bullet the base and the file both have: what the file changed, as operations on the bullet as it is now. */
function changesFor(args: {
  bullet: BulletDoc;
  was: BulletState;
  now: BulletState;
  /** The base section the bullet's file section is; undefined when that section is new. */
  sectionBaseId: string | undefined;
  targetName: string;
  input: ProposalDiffInput;
  current: PlaybookState;
}): BulletChanges {
  const { bullet, was, now, sectionBaseId, targetName, input, current } = args;
  const { source, baseVersion } = input;
  const result: BulletChanges = { operations: [], what: [], alreadyApplied: 0 };
  const id = bullet.id;

  if (bullet.status === "archived") {
    if (was.status === "archived") return result;
    if (now.status === "archived") result.alreadyApplied += 1;
    else {
      result.operations.push({
        operation: { type: "remove", bulletId: id, reason: bullet.archivedReason?.trim() || `Archived in ${source}.` },
        rationale: `Archived in ${source}.`,
      });
      result.what.push("archived");
    }
    return result;
  }

  if (was.status === "archived") {
    if (now.status === "active") result.alreadyApplied += 1;
    else {
      result.operations.push({
        operation: { type: "restore", bulletId: id },
        rationale: `Archived in version ${baseVersion}, active in ${source}.`,
      });
      result.what.push("restored");
    }
  }

  const update: { content?: string; section?: string } = {};
  const reasons: string[] = [];
  const content = bullet.content.trim();
  if (content !== was.content.trim()) {
    if (content === now.content.trim()) result.alreadyApplied += 1;
    else {
      update.content = content;
      reasons.push(`Content changed in ${source}.`);
      result.what.push("content");
    }
  }
  if (sectionBaseId !== was.sectionId) {
    const destination =
      sectionBaseId !== undefined
        ? sectionBaseId
        : current.sections.find((section) => sectionKey(section.name) === sectionKey(targetName))?.id;
    if (destination !== undefined && destination === now.sectionId) result.alreadyApplied += 1;
    else {
      update.section = targetName;
      const from = input.base.sections.find((section) => section.id === was.sectionId)?.name ?? "its section";
      reasons.push(`Moved in ${source} from "${from}" to "${targetName}".`);
      result.what.push("section");
    }
  }
  if (update.content !== undefined || update.section !== undefined) {
    result.operations.push({ operation: { type: "update", bulletId: id, ...update }, rationale: reasons.join(" ") });
  }

  const tag = tagFor(bullet, was, now, input);
  if (tag) {
    result.operations.push(tag);
    result.what.push("counters");
  }
  return result;
}

/**
 * The file's counter changes since the base as increments: counters count observations, so what ACE
 * Studio counted since is kept and added to (two sides reaching the same number saw different uses).
 * No counter drops below 0: a decrement is cut to what the bullet has now.
 */
function tagFor(bullet: BulletDoc, was: BulletState, now: BulletState, input: ProposalDiffInput): ProposedOperation | null {
  const counters = carriedCounters(bullet, input.counters);
  if (counters.length === 0 || bullet.counters === null) return null;
  const operation: { type: "tag"; bulletId: string; helpful?: number; harmful?: number; neutral?: number } = {
    type: "tag",
    bulletId: bullet.id,
  };
  const changes: string[] = [];
  for (const counter of counters) {
    const inFile = bullet.counters[counter];
    const increment = Math.max(inFile - was[counter], -now[counter]);
    if (increment === 0) continue;
    operation[counter] = increment;
    changes.push(`${counter} ${was[counter]} → ${inFile}`);
  }
  if (changes.length === 0) return null;
  return { operation, rationale: `Counters in ${input.source}: ${changes.join(", ")} since version ${input.baseVersion}.` };
}
