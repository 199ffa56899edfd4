// A large, deterministic playbook in ACE text with counters: the same seed gives the same bytes,
// so runs on different days and machines measure the same data.
import { classifyBullet, type BulletSignal } from "@/server/ace/signals";
import { formatBulletId } from "@/server/ace/ids";

export interface SyntheticPlaybook {
  text: string;
  bulletCount: number;
  sectionNames: string[];
  /** The first bullet in reading order (first section, lowest position). */
  firstBulletId: string;
  /** A word a person might search for; it occurs in a fraction of the bullets. */
  searchWord: string;
  /** Bullets per counter signal. "untracked" stays 0: every line of this format carries counters. */
  signals: Record<BulletSignal, number>;
}

/** mulberry32: tiny, fast and good enough to make test data; not for anything secret. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The LangChain middleware's seven sections, then five a long-running agent might grow. */
const SECTIONS = [
  { name: "strategies_and_insights", slug: "str", weight: 5 },
  { name: "formulas_and_calculations", slug: "cal", weight: 1 },
  { name: "code_snippets_and_templates", slug: "cod", weight: 2 },
  { name: "common_mistakes_to_avoid", slug: "mis", weight: 4 },
  { name: "problem_solving_heuristics", slug: "heu", weight: 3 },
  { name: "context_clues_and_indicators", slug: "ctx", weight: 2 },
  { name: "others", slug: "oth", weight: 1 },
  { name: "api_usage_patterns", slug: "api", weight: 3 },
  { name: "data_validation", slug: "val", weight: 2 },
  { name: "error_recovery", slug: "err", weight: 2 },
  { name: "tool_selection", slug: "too", weight: 1 },
  { name: "output_formatting", slug: "fmt", weight: 1 },
] as const;

const SEARCH_WORD = "pagination";

// Vocabulary of the published AppWorld and finance playbooks, plus code-ish tokens and the
// characters LIKE treats specially (%, _), so search escaping is exercised as well.
const WORDS = (
  "always never verify check call the api before after when if then use apis.api_docs.show_api_doc " +
  "page_index page_limit pagination results each every item list response status code error retry " +
  "timeout login access_token password supervisor account user playlist song album artist venmo " +
  "transaction amount balance date datetime timedelta yesterday month year file directory path " +
  "read write parse json csv field key value missing empty null none zero total sum average count " +
  "unique duplicate sort order filter condition loop while for break return complete_task answer " +
  "format string number integer float round percent 100% decimal currency dollars rate interest " +
  "formula calculate compute subtract multiply divide ratio growth revenue expense quarter fiscal " +
  "table row column header schema validate input output expected actual mismatch assumption edge " +
  "case boundary first last next previous remaining all only instead of rather than because so " +
  "that which this these those small chunks step irreversible change confirm with by from into " +
  "on in at to of and or not a an is are be should must can may might avoid prefer ensure keep " +
  "note email phone contact address friend roommate partner message reply notification simple_note " +
  "spotify file_system todoist splitwise amazon cart order_id product review rating search query"
).split(" ");

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function int(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** Skewed towards short bullets like the published playbooks, within 60–400 characters. */
export function syntheticBulletContent(random: () => number): string {
  const target = 60 + Math.floor(340 * random() ** 1.6);
  const words: string[] = [];
  let length = 0;
  while (length < target) {
    let word = pick(random, WORDS);
    if (words.length === 0) word = word[0]?.toUpperCase() + word.slice(1);
    else if (random() < 0.06) word += ",";
    else if (random() < 0.04) word += ".";
    words.push(word);
    length += word.length + 1;
  }
  let text = words.join(" ");
  if (text.length > 399) text = text.slice(0, 399).trimEnd();
  return text.endsWith(".") ? text : `${text}.`;
}

type CounterSignal = Exclude<BulletSignal, "untracked">;
const SIGNAL_SHARES: readonly [CounterSignal, number][] = [
  ["unused", 0.3],
  ["in_use", 0.35],
  ["high_performing", 0.2],
  ["problematic", 0.15],
];

function counters(random: () => number): { helpful: number; harmful: number } {
  let roll = random();
  let signal: CounterSignal = "in_use";
  for (const [candidate, share] of SIGNAL_SHARES) {
    if (roll < share) {
      signal = candidate;
      break;
    }
    roll -= share;
  }
  switch (signal) {
    case "unused":
      return { helpful: 0, harmful: 0 };
    case "high_performing":
      return { helpful: int(random, 6, 60), harmful: int(random, 0, 1) };
    case "problematic": {
      const harmful = int(random, 1, 12);
      return { helpful: int(random, 0, harmful), harmful };
    }
    case "in_use": {
      // More helpful than harmful, and not high performing: few helpful votes, or 2+ harmful ones.
      const helpful = int(random, 1, 30);
      const harmful = helpful <= 5 ? int(random, 0, helpful - 1) : int(random, 2, helpful - 1);
      return { helpful, harmful };
    }
  }
}

export function syntheticPlaybook({ bullets = 10_000, seed = 0xace } = {}): SyntheticPlaybook {
  const random = seededRandom(seed);
  const totalWeight = SECTIONS.reduce((sum, section) => sum + section.weight, 0);
  const lines = SECTIONS.map(() => [] as string[]);
  const signals: Record<BulletSignal, number> = { high_performing: 0, problematic: 0, unused: 0, in_use: 0, untracked: 0 };
  // Ids are numbered across the playbook in the order bullets were "learned", so sections interleave.
  for (let number = 1; number <= bullets; number++) {
    let roll = random() * totalWeight;
    let index = 0;
    while (index < SECTIONS.length - 1 && roll >= (SECTIONS[index]?.weight ?? 0)) {
      roll -= SECTIONS[index]?.weight ?? 0;
      index++;
    }
    const section = SECTIONS[index] as (typeof SECTIONS)[number];
    const { helpful, harmful } = counters(random);
    signals[classifyBullet({ helpful, harmful, countersKnown: true })]++;
    const id = formatBulletId(section.slug, number);
    (lines[index] as string[]).push(`[${id}] helpful=${helpful} harmful=${harmful} :: ${syntheticBulletContent(random)}`);
  }
  const missing = (Object.keys(signals) as BulletSignal[]).filter((signal) => signal !== "untracked" && signals[signal] === 0);
  if (missing.length > 0) throw new Error(`The synthetic playbook lacks bullets that are ${missing.join(", ")}.`);
  const firstLine = lines.find((sectionLines) => sectionLines.length > 0)?.[0] ?? "";
  const firstBulletId = /^\[([^\]]+)\]/.exec(firstLine)?.[1];
  if (!firstBulletId) throw new Error("The synthetic playbook has no bullets.");
  const text = SECTIONS.map((section, index) => [`## ${section.name}`, ...(lines[index] ?? [])].join("\n")).join("\n\n") + "\n";
  return {
    text,
    bulletCount: bullets,
    sectionNames: SECTIONS.map((section) => section.name),
    firstBulletId,
    searchWord: SEARCH_WORD,
    signals,
  };
}
