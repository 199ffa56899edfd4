// What the curation benchmarks work on: the synthetic playbook as the delta engine's state,
// curator-like deltas that never touch a bullet twice, and new bullets to check for duplicates.
import { createPlaybookState, type DeltaOperation, type PlaybookState } from "@/server/ace/delta";
import { parsePlaybook } from "@/server/ace/formats";
import type { BulletState, SectionState } from "@/server/ace/history";
import { rowsFromDocument } from "@/server/playbooks/mapping";
import { seededRandom, syntheticBulletContent, type SyntheticPlaybook } from "./synthetic";

export interface CurationCorpus {
  sections: SectionState[];
  /** In reading order. */
  bullets: BulletState[];
  /** The playbook as its import leaves it (version 1), built the way the import builds its rows. */
  state: PlaybookState;
}

export function curationCorpus(synthetic: SyntheticPlaybook): CurationCorpus {
  const { sections, bullets } = rowsFromDocument(parsePlaybook(synthetic.text, "ace").document);
  const sectionStates = sections.map(({ id, name, slug, position }): SectionState => ({ id, name, slug, position }));
  const bulletStates = bullets.map(({ state }) => state);
  return { sections: sectionStates, bullets: bulletStates, state: createPlaybookState(sectionStates, bulletStates) };
}

// ---- deltas ------------------------------------------------------------------------------------

/** One delta, as a curator proposes after a batch of traces (the mix of the former timed test, plus a merge). */
export const DELTA_MIX = { edit: 20, tag: 12, add: 10, move: 5, remove: 2, merge: 1 } as const;
export const OPERATIONS_PER_DELTA = Object.values(DELTA_MIX).reduce((sum, n) => sum + n, 0);
/** A merge takes two bullets: it keeps one and archives the other. */
const BULLETS_PER_DELTA = DELTA_MIX.edit + DELTA_MIX.tag + DELTA_MIX.move + DELTA_MIX.remove + 2 * DELTA_MIX.merge;

/** What `deltas` deltas of DELTA_MIX do to a playbook, as diffStates counts it (counters vary with the merged bullets). */
export function expectedDiff(deltas: number) {
  return {
    added: DELTA_MIX.add * deltas,
    removed: DELTA_MIX.remove * deltas,
    // The merge's kept bullet gets the merged content.
    edited: (DELTA_MIX.edit + DELTA_MIX.merge) * deltas,
    moved: DELTA_MIX.move * deltas,
    merged: DELTA_MIX.merge * deltas,
  };
}

// Curator lessons differ from each other; sentences drawn from one vocabulary keep near-duplicates rare, as in a real playbook.
const VOCABULARY = (
  "verify check call api before after page cursor limit retry backoff timeout token refresh account balance " +
  "transaction ledger quarter total currency rate round decimal parse json field schema missing null empty " +
  "date timezone utc month fiscal report filter sort unique duplicate cache session user login playlist song " +
  "venmo invoice receipt tax refund batch queue worker lock deadline priority escalate summary answer cite"
).split(" ");

export interface DeltaSource {
  /** The next delta's operations; throws when the playbook has no untouched bullets left for one. */
  next(): DeltaOperation[];
  /** Deltas made so far. */
  readonly made: number;
  /** How many deltas the playbook's bullets allow. */
  readonly capacity: number;
}

/**
 * Deltas of DELTA_MIX on bullets no earlier delta touched (drawn in a seeded random order, so every
 * delta spans the sections), each applying cleanly to the playbook the earlier ones left: moves go
 * to another section, and no two operations of a delta share a bullet.
 */
export function deltaSource(corpus: CurationCorpus, seed = 0xde17a): DeltaSource {
  const random = seededRandom(seed);
  const pool = corpus.bullets.filter((bullet) => bullet.status === "active");
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pool[i], pool[j]] = [pool[j] as BulletState, pool[i] as BulletState];
  }
  const names = corpus.sections.map((section) => section.name);
  const nameOf = new Map(corpus.sections.map((section) => [section.id, section.name]));
  const sentence = (words: number) => Array.from({ length: words }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(" ");
  const capacity = Math.floor(pool.length / BULLETS_PER_DELTA);
  let made = 0;
  let taken = 0;
  const take = () => pool[taken++] as BulletState;

  function next(): DeltaOperation[] {
    if (made >= capacity) throw new Error(`The playbook has untouched bullets for ${capacity} deltas only.`);
    const round = made;
    const ops: DeltaOperation[] = [];
    for (let i = 0; i < DELTA_MIX.edit; i++) ops.push({ type: "update", bulletId: take().externalId, content: `Always ${sentence(14)}.` });
    for (let i = 0; i < DELTA_MIX.tag; i++)
      ops.push({ type: "tag", bulletId: take().externalId, helpful: 1, harmful: i % 3 === 0 ? 1 : 0 });
    for (let i = 0; i < DELTA_MIX.add; i++) {
      ops.push({ type: "add", section: names[(round * DELTA_MIX.add + i) % names.length] as string, content: `When ${sentence(14)}.` });
    }
    for (let i = 0; i < DELTA_MIX.move; i++) {
      const bullet = take();
      const others = names.filter((name) => name !== nameOf.get(bullet.sectionId));
      ops.push({ type: "update", bulletId: bullet.externalId, section: others[(round + i) % others.length] as string });
    }
    for (let i = 0; i < DELTA_MIX.remove; i++)
      ops.push({ type: "remove", bulletId: take().externalId, reason: `Delta ${round}: superseded.` });
    for (let i = 0; i < DELTA_MIX.merge; i++) {
      const kept = take();
      const source = take();
      ops.push({
        type: "merge",
        bulletIds: [source.externalId],
        into: kept.externalId,
        content: `${kept.content.replace(/\.$/, "")}; ${sentence(8)}.`,
        reason: `Delta ${round}: the same lesson twice.`,
      });
    }
    made += 1;
    return ops;
  }

  return {
    next,
    get made() {
      return made;
    },
    capacity,
  };
}

// ---- new bullets for the duplicate check ----------------------------------------------------------

export interface NewBullet {
  content: string;
  /** The bullet it rewords, or null for a new lesson. */
  rewords: string | null;
}

/** A curator's light rewording: a word dropped, one added, or two swapped. */
function reword(content: string, random: () => number): string {
  const words = content.split(" ");
  const at = 1 + Math.floor(random() * Math.max(1, words.length - 2));
  const kind = Math.floor(random() * 3);
  if (kind === 0 && words.length > 4) words.splice(at, 1);
  else if (kind === 1 || words.length <= 4) words.splice(at, 0, "always");
  else [words[at - 1], words[at]] = [words[at] as string, words[at - 1] as string];
  return words.join(" ");
}

/**
 * `count` different new bullets: `rewordings` of them reword an active bullet of the playbook, the
 * others are new lessons in the playbook's own vocabulary and lengths (another seed of its generator).
 */
export function newBullets(
  corpus: CurationCorpus,
  { count, rewordings, seed }: { count: number; rewordings: number; seed: number },
): NewBullet[] {
  const random = seededRandom(seed);
  const active = corpus.bullets.filter((bullet) => bullet.status === "active");
  const existing = new Set(active.map((bullet) => bullet.content));
  const seen = new Set<string>();
  const result: NewBullet[] = [];
  const push = (bullet: NewBullet) => {
    if (existing.has(bullet.content) || seen.has(bullet.content)) return;
    seen.add(bullet.content);
    result.push(bullet);
  };
  while (result.length < rewordings) {
    const original = active[Math.floor(random() * active.length)] as BulletState;
    push({ content: reword(original.content, random), rewords: original.externalId });
  }
  while (result.length < count) push({ content: syntheticBulletContent(random), rewords: null });
  // Interleaved, so the near-duplicates are not timed all together.
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [result[i], result[j]] = [result[j] as NewBullet, result[i] as NewBullet];
  }
  return result;
}
