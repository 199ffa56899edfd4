// What the audit log records of a change to a playbook: the action a person's edit is named by,
// and small before/after summaries of what a version changed (never the whole playbook).
import type { DeltaOperation } from "@/server/ace/delta";
import type { BulletState, SectionState, VersionChange } from "@/server/ace/history";
import type { AuditAction } from "@/server/audit/schemas";

const EDIT_ACTIONS: Record<DeltaOperation["type"], AuditAction> = {
  add: "bullet.add",
  update: "bullet.update",
  remove: "bullet.remove",
  restore: "bullet.restore",
  merge: "bullet.merge",
  tag: "bullet.tag",
  pin: "bullet.pin",
  unpin: "bullet.unpin",
  add_section: "section.add",
  rename_section: "section.rename",
  move_section: "section.move",
  remove_section: "section.remove",
};

/** A person's edit is named by what its operations do when they all do one thing, else playbook.edit. */
export function editAction(ops: readonly DeltaOperation[]): AuditAction {
  const types = new Set(ops.map((op) => op.type));
  const [only] = types;
  return types.size === 1 && only ? EDIT_ACTIONS[only] : "playbook.edit";
}

/** At most this many bullets and sections are summarised; the rest are counted. */
const SUMMARISED_CHANGES = 20;

function bulletSummary(state: BulletState) {
  const { content, sectionId, status, helpful, harmful, neutral } = state;
  return { content, section: sectionId, status, helpful, harmful, neutral };
}

function sectionSummary(state: SectionState) {
  return { name: state.name, position: state.position };
}

type Summary = Record<string, unknown> | null;

export interface ChangeSummaries {
  before: Record<string, Summary>;
  after: Record<string, Summary>;
}

/**
 * The changes of a version as two summaries, keyed by bullet id or `section:<id>`: what each was
 * before (null: it did not exist) and after. Beyond SUMMARISED_CHANGES, only a count.
 */
export function changeSummaries(changes: readonly VersionChange[]): ChangeSummaries {
  const before: Record<string, Summary> = {};
  const after: Record<string, Summary> = {};
  for (const change of changes.slice(0, SUMMARISED_CHANGES)) {
    const key = change.entity === "bullet" ? change.id : `section:${change.id}`;
    if (change.entity === "bullet") {
      before[key] = change.before ? bulletSummary(change.before) : null;
      after[key] = change.after ? bulletSummary(change.after) : null;
    } else {
      before[key] = change.before ? sectionSummary(change.before) : null;
      after[key] = change.after ? sectionSummary(change.after) : null;
    }
  }
  if (changes.length > SUMMARISED_CHANGES) after.more = { changes: changes.length - SUMMARISED_CHANGES };
  return { before, after };
}

/** The target of an edit: the one bullet it changed, else the playbook. */
export function editTarget(ops: readonly DeltaOperation[], playbookId: string, addedIds: readonly string[]) {
  const only = ops.length === 1 ? ops[0] : undefined;
  if (only && "bulletId" in only) return { type: "bullet", id: only.bulletId, label: only.bulletId };
  if (only?.type === "add" && addedIds[0]) return { type: "bullet", id: addedIds[0], label: addedIds[0] };
  return { type: "playbook", id: playbookId, label: null };
}

/** Origins whose text is drawn from agents' traces (a reflection, a curation of reflections, pruning by counters). */
const TRACE_ORIGINS: ReadonlySet<string> = new Set(["reflector", "curator", "pruning"]);

/**
 * Whether a delta's rationale and notes may quote traces: it came from them, or cites one. The audit
 * log is append-only, so it never stores such text (erasure could not take it back): only counts.
 */
export function quotesTraces(origin: string, evidence: unknown): boolean {
  return TRACE_ORIGINS.has(origin) || evidenceCounts(evidence).traces > 0;
}

function evidenceCounts(evidence: unknown): { traces: number; runs: number } {
  const list = (key: string) => {
    const value = evidence && typeof evidence === "object" ? (evidence as Record<string, unknown>)[key] : undefined;
    return Array.isArray(value) ? value.length : 0;
  };
  return { traces: list("traceIds"), runs: list("runIds") };
}

/** What the audit log keeps of a delta's rationale: a person's or agent's own words, or, for text drawn from traces, counts. */
export function auditedRationale(
  origin: string,
  rationale: string,
  evidence: unknown,
): { rationale: string } | { rationaleChars: number; evidenceTraces: number; evidenceRuns: number } {
  if (!quotesTraces(origin, evidence)) return { rationale: rationale.slice(0, 500) };
  const counts = evidenceCounts(evidence);
  return { rationaleChars: rationale.length, evidenceTraces: counts.traces, evidenceRuns: counts.runs };
}

/** What a version's reason says of the delta it applied: its rationale, or counts when that may quote traces. */
export function versionRationale(origin: string, rationale: string, evidence: unknown): string {
  if (!quotesTraces(origin, evidence)) return rationale ? `: ${rationale}` : "";
  const { traces, runs } = evidenceCounts(evidence);
  return traces || runs ? ` (evidence: ${traces} traces, ${runs} runs)` : "";
}
