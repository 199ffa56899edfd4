// How findings name operations, so every message starts the same way: "Operation 3 (update [str-00004]): …".
import type { DeltaOperation, Finding, FindingKind, FindingSeverity } from "./types";

export function describeOperation(op: DeltaOperation): string {
  switch (op.type) {
    case "add":
      return `add to "${op.section}"`;
    case "update":
    case "remove":
    case "restore":
    case "tag":
    case "pin":
    case "unpin":
      return `${op.type} [${op.bulletId}]`;
    case "merge":
      return `merge ${op.bulletIds.map((id) => `[${id}]`).join(", ")} into [${op.into}]`;
    case "add_section":
      return `add_section "${op.name}"`;
    case "rename_section":
    case "move_section":
    case "remove_section":
      return `${op.type} "${op.section}"`;
  }
}

/** Operations count from 1 in messages (as a person numbers them) and from 0 in operationIndex. */
export function operationLabel(index: number, op: DeltaOperation): string {
  return `Operation ${index + 1} (${describeOperation(op)})`;
}

export function makeFinding(
  index: number,
  op: DeltaOperation,
  severity: FindingSeverity,
  kind: FindingKind,
  text: string,
  extra: Partial<Pick<Finding, "relatedOperationIndex" | "matchedBulletId" | "similarity" | "suggestion">> = {},
): Finding {
  return { operationIndex: index, severity, kind, message: `${operationLabel(index, op)}: ${text}`, ...extra };
}

/**
 * A finding's message as a sentence of its own: findings end without a full stop so they can be
 * quoted mid-sentence, so one is added where a message is followed by another sentence.
 */
export function asSentence(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed === "" || /[.!?…]["')\]]?$/u.test(trimmed) ? trimmed : `${trimmed}.`;
}
