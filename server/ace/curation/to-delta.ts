// From model output to the delta engine's operations: the curator's operations (checked against
// the playbook and cleaned, since model output is untrusted) and the reflector's bullet tags.
import type {
  AddOperation,
  AddSectionOperation,
  DeltaOperation,
  MergeOperation,
  PlaybookState,
  RemoveOperation,
  TagOperation,
  UpdateOperation,
} from "../delta/types";
import type { Reflection } from "../reflection/schema";
import { detectPromptInjection, sanitizeModelText } from "../safety";
import { CURATOR_LIMITS, type CuratorOperation, type CuratorOutput } from "./schema";
import { looseKey, resolveAddSection, sectionName } from "./sections";

/** Bullet content is cleaned with this cap; the engine's own limit then decides what is too long. */
const SANITIZE_CONTENT_LENGTH = CURATOR_LIMITS.content;
const DEFAULT_REMOVE_REASON = "Removed by the curator.";

export interface CuratorDelta {
  operations: DeltaOperation[];
  /**
   * Per delta operation, the 0-based index of the curator operation it came from (an add_section
   * shares the index of the ADD that needed it). Dropped operations leave gaps, so use this, not
   * the position, to find an operation's rationale and confidence.
   */
  sources: number[];
  /** One sentence per operation dropped or adjusted, naming it as "Operation 3 (UPDATE [str-00004])". */
  problems: string[];
}

export interface CuratorDeltaOptions {
  /**
   * Keep an operation whose content looks like a prompt injection (noting it in `problems`) instead
   * of dropping it: for callers that flag it to the reviewer themselves. Default false.
   */
  keepSuspectedInjections?: boolean;
}

/**
 * The curator's operations as engine operations. Never throws: an operation with an unknown,
 * archived or missing bullet id, empty content or (unless kept by option) signs of prompt
 * injection is dropped with a problem. Content is cleaned of control and invisible characters.
 * ADD sections resolve by id, name (ignoring case, spaces, "_" and "-") or slug; an unknown name
 * gets an add_section operation before the first add to it, and an empty name falls back to the
 * playbook's "others" section (else its last section). MERGE keeps its first id.
 */
export function curatorOperationsToDelta(
  output: CuratorOutput,
  state: PlaybookState,
  { keepSuspectedInjections = false }: CuratorDeltaOptions = {},
): CuratorDelta {
  const operations: DeltaOperation[] = [];
  const sources: number[] = [];
  const problems: string[] = [];
  const newSections = new Map<string, string>();

  for (const [index, op] of (Array.isArray(output?.operations) ? output.operations : []).entries()) {
    const label = `Operation ${index + 1} (${describe(op)})`;
    const drop = (why: string) => problems.push(`${label} was dropped: ${why}.`);
    const suspect = (what: string, text: string): boolean => {
      const injection = detectPromptInjection(text)[0];
      if (!injection) return false;
      const why = `${what} looks like a prompt injection (${injection.message} "${injection.excerpt}")`;
      if (keepSuspectedInjections) {
        problems.push(`${label}: ${why}.`);
        return false;
      }
      drop(why);
      return true;
    };
    const emit = (operation: DeltaOperation) => {
      operations.push(operation);
      sources.push(index);
    };
    const ids = cleanIds(op?.bulletIds);
    const content = typeof op?.content === "string" ? sanitizeModelText(op.content, { maxLength: SANITIZE_CONTENT_LENGTH }) : "";
    const rationale = typeof op?.rationale === "string" ? sanitizeModelText(op.rationale, { maxLength: CURATOR_LIMITS.rationale }) : "";

    const needsContent = op?.type === "ADD" || op?.type === "UPDATE" || op?.type === "MERGE";
    if (needsContent) {
      if (content === "") {
        drop("it has no content");
        continue;
      }
      if (suspect("its content", content)) continue;
    }

    switch (op?.type) {
      case "ADD": {
        const target = resolveAddSection(op.section, state.sections);
        if (target.kind === "new") {
          if (suspect("its new section name", target.name)) continue;
          if (!newSections.has(looseKey(target.name))) {
            newSections.set(looseKey(target.name), target.name);
            emit({ type: "add_section", name: target.name } satisfies AddSectionOperation);
            problems.push(`${label}: there is no section "${target.name}"; the delta adds it.`);
          }
          emit({ type: "add", section: newSections.get(looseKey(target.name)) ?? target.name, content } satisfies AddOperation);
          break;
        }
        if (target.note) problems.push(`${label}: ${target.note}.`);
        emit({ type: "add", section: target.section.name, content } satisfies AddOperation);
        break;
      }
      case "UPDATE":
      case "REMOVE": {
        const [id, ...extra] = ids;
        if (id === undefined) {
          drop("it names no bullet id");
          continue;
        }
        const missing = bulletProblem(state, id);
        if (missing) {
          drop(missing);
          continue;
        }
        if (extra.length > 0) problems.push(`${label}: only [${id}] is used; ${extra.map((other) => `[${other}]`).join(", ")} ignored.`);
        if (op.type === "UPDATE") emit({ type: "update", bulletId: id, content } satisfies UpdateOperation);
        else emit({ type: "remove", bulletId: id, reason: rationale || DEFAULT_REMOVE_REASON } satisfies RemoveOperation);
        break;
      }
      case "MERGE": {
        if (ids.length < 2) {
          drop("a merge needs at least two distinct bullet ids");
          continue;
        }
        const missing = ids.map((id) => bulletProblem(state, id)).filter((problem): problem is string => problem !== null);
        if (missing.length > 0) {
          drop(missing.join("; "));
          continue;
        }
        const [into] = ids as [string, ...string[]];
        const merge: MergeOperation = { type: "merge", bulletIds: ids, into, content };
        if (rationale) merge.reason = rationale;
        emit(merge);
        break;
      }
      default:
        drop(`"${String(op?.type)}" is not ADD, UPDATE, REMOVE or MERGE`);
    }
  }
  return { operations, sources, problems };
}

function describe(op: CuratorOperation | undefined): string {
  const ids = cleanIds(op?.bulletIds);
  const type = typeof op?.type === "string" ? sanitizeModelText(op.type, { maxLength: 20 }) : "unknown";
  if (type === "ADD") return `ADD to "${sectionName(op?.section)}"`;
  return ids.length > 0 ? `${type} ${ids.map((id) => `[${id}]`).join(", ")}` : type;
}

/** Ids as models write them: "[str-00001]" and " str-00001 " mean str-00001; repeats count once. */
function cleanIds(ids: unknown): string[] {
  if (!Array.isArray(ids)) return [];
  const cleaned = ids
    .filter((id): id is string => typeof id === "string")
    .map((id) =>
      sanitizeModelText(id, { maxLength: CURATOR_LIMITS.bulletId })
        .replace(/^\[\s*|\s*\]$/gu, "")
        .trim(),
    )
    .filter(Boolean);
  return [...new Set(cleaned)];
}

function bulletProblem(state: PlaybookState, id: string): string | null {
  const bullet = state.bullets.get(id);
  if (!bullet) return `there is no bullet [${id}] in this playbook`;
  if (bullet.status !== "active") return `the bullet [${id}] is archived`;
  return null;
}

// ---- tags --------------------------------------------------------------------------------------

/**
 * One tag operation per bullet the reflection tagged (the engine's TagOperation counts for a single
 * bullet): +1 on the counter named by the tag. Ids the playbook lacks are ignored, and a bullet
 * tagged twice counts once (its first tag). Archived bullets are tagged too: the engine keeps
 * their counts as history.
 */
export function reflectionTagsToOperations(reflection: Pick<Reflection, "bulletTags">, state: PlaybookState): TagOperation[] {
  const operations: TagOperation[] = [];
  const seen = new Set<string>();
  for (const tag of Array.isArray(reflection?.bulletTags) ? reflection.bulletTags : []) {
    const [id] = cleanIds([tag?.id]);
    if (id === undefined || seen.has(id) || !state.bullets.has(id)) continue;
    if (tag.tag !== "helpful" && tag.tag !== "harmful" && tag.tag !== "neutral") continue;
    seen.add(id);
    const operation: TagOperation = { type: "tag", bulletId: id };
    operation[tag.tag] = 1;
    operations.push(operation);
  }
  return operations;
}
