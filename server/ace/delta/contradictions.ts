// Two operations of one delta that cannot both hold. These are judged on the delta as a whole,
// whatever their order, because a curator who both edits and removes a bullet meant one of the two
// and the engine must not guess which. The rules, per bullet (either order):
//   remove       × update (content or place), remove, restore, merge (kept or source)
//   merge source × update, restore, merge (kept or source), tag (the counts would land on the kept
//                  bullet or be lost depending on order)
//   merge kept   × update of content (two contents), merge kept (two merged contents)
//   update       × update that sets the content, or the place, to a different value
//   pin / unpin  × the other of the two, remove, merge source (an archived bullet is not pinned)
// and per section: two renames to different names, two moves to different positions, and a
// section deletion with any rename, move or deletion of the same section.
// Allowed on purpose: tags with anything but a merge source (counts add up in any order), restore
// before an update or merge (the "restore it first" advice), a move of a merge's kept bullet, and
// repeats with equal values (the later one is reported as a no-op by the run, not as a contradiction).
import { makeFinding, describeOperation } from "./messages";
import { sectionKey } from "./sections";
import type { DeltaOperation, Finding } from "./types";

type RoleKind = "remove" | "mergeSource" | "mergeKept" | "edit" | "place" | "restore" | "tag" | "pin";

interface Role {
  kind: RoleKind;
  index: number;
  /** edit: the content; place: section and position; pin: "pin" or "unpin"; section roles: the new name or position. */
  value?: string;
}

const SAME_VALUE_ALLOWED = new Set<RoleKind>(["edit", "place", "pin"]);

// Keyed by the two kinds in RULE_ORDER order; the text says what the two operations do to the bullet.
const RULE_ORDER: readonly RoleKind[] = ["remove", "mergeSource", "mergeKept", "edit", "place", "restore", "tag", "pin"];
const BULLET_RULES: Partial<Record<`${RoleKind}|${RoleKind}`, string>> = {
  "remove|remove": "both archive the bullet",
  "remove|mergeSource": "one removes the bullet and the other merges it away",
  "remove|mergeKept": "one removes the bullet the other keeps as its merge result",
  "remove|edit": "one removes the bullet and the other edits it",
  "remove|place": "one removes the bullet and the other moves it",
  "remove|restore": "one removes the bullet and the other restores it",
  "mergeSource|mergeSource": "both merge the bullet away",
  "mergeSource|mergeKept": "one merges the bullet away and the other keeps it as a merge result",
  "mergeSource|edit": "one merges the bullet away and the other edits it",
  "mergeSource|place": "one merges the bullet away and the other moves it",
  "mergeSource|restore": "one merges the bullet away and the other restores it",
  "mergeSource|tag":
    "one merges the bullet away, so the tag's counts would reach the kept bullet or be lost depending on order; tag the kept bullet instead",
  "mergeKept|mergeKept": "both merge into the bullet, each with its own content; combine them into one merge",
  "mergeKept|edit": "both set the bullet's content",
  "edit|edit": "both set the bullet's content, to different text",
  "place|place": "both move the bullet, to different places",
  "pin|pin": "one pins the bullet and the other unpins it",
  "remove|pin": "one removes the bullet and the other pins or unpins it; an archived bullet is never pinned",
  "mergeSource|pin": "one merges the bullet away and the other pins or unpins it; pin the kept bullet instead",
};

function ruleFor(a: Role, b: Role): string | null {
  if (a.kind === b.kind && SAME_VALUE_ALLOWED.has(a.kind) && a.value === b.value) return null;
  const [first, second] = RULE_ORDER.indexOf(a.kind) <= RULE_ORDER.indexOf(b.kind) ? [a, b] : [b, a];
  return BULLET_RULES[`${first.kind}|${second.kind}`] ?? null;
}

function bulletRoles(op: DeltaOperation, index: number): [string, Role][] {
  switch (op.type) {
    case "update": {
      const roles: [string, Role][] = [];
      if (op.content !== undefined) roles.push([op.bulletId, { kind: "edit", index, value: op.content }]);
      if (op.section !== undefined || op.position !== undefined) {
        const value = `${op.section === undefined ? "" : sectionKey(op.section)}\u0000${op.position ?? ""}`;
        roles.push([op.bulletId, { kind: "place", index, value }]);
      }
      return roles;
    }
    case "remove":
    case "restore":
    case "tag":
      return [[op.bulletId, { kind: op.type, index }]];
    case "pin":
    case "unpin":
      return [[op.bulletId, { kind: "pin", index, value: op.type }]];
    case "merge": {
      const sources = new Set(op.bulletIds.filter((id) => id !== op.into));
      return [[op.into, { kind: "mergeKept", index }], ...[...sources].map((id): [string, Role] => [id, { kind: "mergeSource", index }])];
    }
    default:
      return [];
  }
}

function sectionRole(op: DeltaOperation, index: number): [string, Role] | null {
  if (op.type === "rename_section") return [`rename\u0000${sectionKey(op.section)}`, { kind: "edit", index, value: op.name }];
  if (op.type === "move_section") return [`move\u0000${sectionKey(op.section)}`, { kind: "place", index, value: String(op.position) }];
  return null;
}

const SECTION_RULES: Partial<Record<RoleKind, string>> = {
  edit: "both rename the section, to different names",
  place: "both move the section, to different positions",
};

/** One error per later operation and earlier operation it contradicts, on the later one. */
export function findContradictions(ops: readonly DeltaOperation[]): Finding[] {
  const findings: Finding[] = [];
  const bulletSeen = new Map<string, Role[]>();
  const sectionSeen = new Map<string, Role[]>();
  const reported = new Set<string>();
  const report = (later: Role, earlier: Role, reason: string) => {
    const key = `${earlier.index}:${later.index}`;
    if (reported.has(key)) return;
    reported.add(key);
    const op = ops[later.index];
    const other = ops[earlier.index];
    if (!op || !other) return;
    const text = `contradicts operation ${earlier.index + 1} (${describeOperation(other)}): ${reason}; keep one of them`;
    findings.push(makeFinding(later.index, op, "error", "contradiction", text, { relatedOperationIndex: earlier.index }));
  };
  for (const [index, op] of ops.entries()) {
    for (const [bulletId, role] of bulletRoles(op, index)) {
      const earlier = bulletSeen.get(bulletId) ?? [];
      for (const previous of earlier) {
        const reason = previous.index === index ? null : ruleFor(previous, role);
        if (reason) report(role, previous, reason);
      }
      bulletSeen.set(bulletId, [...earlier, role]);
    }
    const section = sectionRole(op, index);
    if (section) {
      const [key, role] = section;
      const earlier = sectionSeen.get(key) ?? [];
      for (const previous of earlier) {
        const reason = previous.value === role.value ? null : SECTION_RULES[role.kind];
        if (reason) report(role, previous, reason);
      }
      sectionSeen.set(key, [...earlier, role]);
    }
  }
  // A deleted section cannot also be renamed, moved or deleted again in the same delta.
  const sectionOps = new Map<string, number[]>();
  for (const [index, op] of ops.entries()) {
    if (op.type === "remove_section" || op.type === "rename_section" || op.type === "move_section") {
      const key = sectionKey(op.section);
      sectionOps.set(key, [...(sectionOps.get(key) ?? []), index]);
    }
  }
  for (const indexes of sectionOps.values()) {
    for (const [n, later] of indexes.entries()) {
      for (const earlier of indexes.slice(0, n)) {
        const a = ops[earlier];
        const b = ops[later];
        if (a?.type !== "remove_section" && b?.type !== "remove_section") continue;
        const other = a?.type === "remove_section" ? b : a;
        const what =
          other?.type === "remove_section"
            ? "both delete the section"
            : `one deletes the section and the other ${other?.type === "rename_section" ? "renames" : "moves"} it`;
        report({ kind: "remove", index: later }, { kind: "remove", index: earlier }, what);
      }
    }
  }
  return findings;
}
