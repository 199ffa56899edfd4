// What a delta's operations touch, how a change elsewhere makes them stale, how the engine's
// findings are numbered and worded for the reviewer, and the provenance of the bullets a delta adds.
// Pure: no database, so every rule here is unit-tested on plain values (findings.test.ts).
import { resolveSection, type DeltaOperation, type DeltaValidationError, type Finding } from "@/server/ace/delta";
import { asSentence, operationLabel } from "@/server/ace/delta/messages";
import type { SectionState } from "@/server/ace/history";
import { AppError } from "@/server/errors/app-error";
import type { NewBulletProvenance } from "./repository";
import { evidenceLinkSchema, evidenceSchema, type DeltaEvidence, type DeltaOrigin } from "./schemas";
import { readStoredOperation } from "./stored";

// ---- Targets ---------------------------------------------------------------------------------

export interface Targets {
  bulletIds: string[];
  sectionIds: string[];
}

/** The bullets an operation reads or changes, and the sections it depends on (resolved now). */
export function operationTargets(op: DeltaOperation, sections: readonly SectionState[]): Targets {
  const section = (ref: string | undefined): string[] => {
    const id = ref === undefined ? undefined : resolveSection(sections, ref)?.id;
    return id === undefined ? [] : [id];
  };
  switch (op.type) {
    case "add":
      return { bulletIds: [], sectionIds: section(op.section) };
    case "update":
      return { bulletIds: [op.bulletId], sectionIds: section(op.section) };
    case "remove":
    case "restore":
    case "tag":
    case "pin":
    case "unpin":
      return { bulletIds: [op.bulletId], sectionIds: [] };
    case "merge":
      return { bulletIds: [...new Set([...op.bulletIds, op.into])], sectionIds: [] };
    case "add_section":
      return { bulletIds: [], sectionIds: [] };
    case "rename_section":
    case "move_section":
    case "remove_section":
      return { bulletIds: [], sectionIds: section(op.section) };
  }
}

/** The union of several operations' targets, each id once, in first-seen order. */
export function mergeTargets(list: readonly Targets[]): Targets {
  return {
    bulletIds: [...new Set(list.flatMap((t) => t.bulletIds))],
    sectionIds: [...new Set(list.flatMap((t) => t.sectionIds))],
  };
}

/** The operation row's columns that pending-overlap and staleness queries read. */
export function targetColumns(targets: Targets) {
  return { targetIds: targets.bulletIds, targetSectionIds: targets.sectionIds };
}

// ---- Staleness -------------------------------------------------------------------------------

export interface StaleTarget {
  /** Bullet external id or section id. */
  target: string;
  /** "[str-00001]" or 'section "Tools"'. */
  label: string;
  version: number;
  message: string;
}

/** The targets a repository found changed after a delta's base version (repository changedTargets). */
export interface ChangedTargets {
  bullets: readonly { externalId: string; changedInVersion: number }[];
  sections: readonly { id: string; name: string; changedInVersion: number }[];
}

/** Each changed target, with the sentence that tells the reviewer when it changed. */
export function describeStaleTargets(changed: ChangedTargets, baseVersion: number): StaleTarget[] {
  const describe = (target: string, label: string, version: number): StaleTarget => ({
    target,
    label,
    version,
    message: `${label} changed in version ${version}, after version ${baseVersion} this delta was proposed against.`,
  });
  return [
    ...changed.bullets.map((b) => describe(b.externalId, `[${b.externalId}]`, b.changedInVersion)),
    ...changed.sections.map((s) => describe(s.id, `Section "${s.name}"`, s.changedInVersion)),
  ];
}

export function staleError(reasons: readonly StaleTarget[]): AppError {
  return new AppError(
    "CONFLICT",
    `This delta is stale: ${asSentence(reasons[0]?.message ?? "its targets changed")} ` +
      "Re-base it to review it against the current playbook, or reject it.",
    { details: { stale: true, reasons: reasons.map((r) => r.message) } },
  );
}

// ---- Findings --------------------------------------------------------------------------------

/**
 * Findings of a sub-list of a delta's operations, renumbered to the operations' places in the
 * whole delta, so "Operation 3" means the third operation the reviewer sees.
 */
export function renumber(findings: readonly Finding[], ops: readonly DeltaOperation[], positions: readonly number[]): Finding[] {
  return findings.map((finding) => {
    const op = ops[finding.operationIndex];
    const position = positions[finding.operationIndex] ?? finding.operationIndex;
    if (!op) return finding;
    const local = `${operationLabel(finding.operationIndex, op)}: `;
    const message = finding.message.startsWith(local)
      ? `${operationLabel(position, op)}: ${finding.message.slice(local.length)}`
      : finding.message;
    const related = finding.relatedOperationIndex;
    return {
      ...finding,
      operationIndex: position,
      message: related === undefined ? message : renumberMention(message, related, positions[related] ?? related),
      ...(related === undefined ? {} : { relatedOperationIndex: positions[related] ?? related }),
    };
  });
}

/** "… operation 2 (…" or "operation #2 (" after the message's own label, renumbered. */
function renumberMention(message: string, local: number, position: number): string {
  if (local === position) return message;
  const labelEnd = message.indexOf("): ");
  const from = labelEnd < 0 ? 0 : labelEnd + 3;
  const mention = new RegExp(`\\boperation (#?)${local + 1} \\(`, "u");
  const rest = message.slice(from).replace(mention, (_, hash: string) => `operation ${hash}${position + 1} (`);
  return message.slice(0, from) + rest;
}

/** The engine's refusal as the INVALID_INPUT error a person reads: the first error, how many more. */
export function invalidDelta(error: DeltaValidationError, ops: readonly DeltaOperation[], positions: readonly number[]): AppError {
  const findings = renumber(error.findings, ops, positions);
  const errors = findings.filter((f) => f.severity === "error");
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length === 2 ? "" : "s"})` : "";
  return new AppError("INVALID_INPUT", `${asSentence(`${errors[0]?.message ?? "The delta is invalid"}${more}`)} Nothing was changed.`, {
    cause: error,
    details: { findings },
  });
}

const REVIEW_KINDS: ReadonlySet<Finding["kind"]> = new Set(["near_duplicate", "token_budget", "content_too_long", "prompt_injection"]);

/** Findings that send a delta to a person even when it could be applied at once. */
export function hasReviewFlags(findings: readonly Finding[]): boolean {
  return findings.some((f) => f.severity === "error" || REVIEW_KINDS.has(f.kind));
}

/** Findings as stored with an operation row (JSON written from Finding[]). */
export function storedFindings(flags: unknown): Finding[] {
  return Array.isArray(flags) ? (flags as Finding[]) : [];
}

/** An operation row's payload, checked (stored.ts); a row that cannot be read is an error naming it. */
export function payloadOf(record: { deltaId?: string; position: number; payload: unknown }): DeltaOperation {
  return readStoredOperation(record.payload, record);
}

// ---- Provenance ------------------------------------------------------------------------------

const BULLET_ORIGIN: Record<DeltaOrigin, NewBulletProvenance["origin"]> = {
  person: "manual",
  reflector: "curator",
  curator: "curator",
  pruning: "curator",
  import: "import",
  rollback: "manual",
  // A bullet has no agent origin: like a curator's, it was proposed by a machine and approved by a
  // person; the delta's origin and the add's rationale say which agent.
  agent: "curator",
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The provenance of each bullet a delta adds: its origin, the rationale of the add operation that
 * made it (else the delta's), the first evidence trace that is a stored trace's id, the first run.
 */
export function provenanceFor(
  origin: DeltaOrigin,
  evidence: DeltaEvidence,
  rationale: string,
  addedRationale: ReadonlyMap<string, string>,
): (bulletId: string) => NewBulletProvenance {
  const traceId = evidence.traceIds.find((id) => UUID.test(id)) ?? null;
  return (bulletId) => ({
    origin: BULLET_ORIGIN[origin],
    justification: (addedRationale.get(bulletId) || rationale || null)?.slice(0, 2_000) ?? null,
    sourceTraceId: traceId,
    sourceRunId: evidence.runIds[0] ?? null,
  });
}

/** The provenance of a delta's new bullets: each add operation's own rationale, else the delta's. */
export function deltaProvenance(
  origin: DeltaOrigin,
  evidence: DeltaEvidence,
  rationale: string,
  operations: readonly { op: DeltaOperation; rationale: string }[],
  addedIds: readonly string[],
): (bulletId: string) => NewBulletProvenance {
  return provenanceFor(origin, evidence, rationale, addedRationales(operations, addedIds));
}

/** Which add operation produced which new id: addedIds are in delta order. */
export function addedRationales(
  ops: readonly { op: DeltaOperation; rationale: string }[],
  addedIds: readonly string[],
): Map<string, string> {
  const map = new Map<string, string>();
  let next = 0;
  for (const { op, rationale } of ops) {
    if (op.type !== "add") continue;
    const id = addedIds[next++];
    if (id && rationale) map.set(id, rationale);
  }
  return map;
}

/** A delta's stored evidence; anything unreadable counts as none. */
export function readEvidence(stored: unknown): DeltaEvidence {
  const parsed = evidenceSchema.safeParse(webLinksOnly(stored ?? {}));
  return parsed.success ? parsed.data : evidenceSchema.parse({});
}

/** Links stored before only web links were accepted are left out, not the rest of the evidence with them. */
function webLinksOnly(stored: unknown): unknown {
  if (typeof stored !== "object" || stored === null || !("links" in stored) || !Array.isArray(stored.links)) return stored;
  return { ...stored, links: stored.links.filter((link: unknown) => evidenceLinkSchema.safeParse(link).success) };
}
