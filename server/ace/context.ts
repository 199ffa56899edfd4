// The context compiler: the part of a playbook an agent puts into its prompt, cut to a token budget.
// Pure: the caller loads the bullets; this ranks, cuts and writes ACE text.
//
// Choices, each for a reason:
// - Pinned bullets come first, in playbook order: a curator's pin outranks whatever counters say,
//   so agents' traces cannot push a pinned rule out. They count against the budget like any bullet,
//   and a budget that cannot hold them all is refused (PinnedBudgetError), never cut silently.
// - Then ranking is by helpful − harmful (bulletScore), ties in playbook order. Unused (0/0) and
//   untracked bullets score 0: they are kept, ranked above bullets that did more harm than good.
// - The cut is a prefix of the ranking: bullets are taken by rank until the next one (with its
//   section header, when it opens a section) would not fit, and then no more. Every included bullet
//   ranks above every omitted one, so the budget never lets a low-ranked short bullet jump a
//   better-ranked long one.
// - The text keeps sections in playbook order (the order the agent was trained on) and, inside a
//   section, bullets in rank order, so the strongest advice comes first where it is read first.
//   Sections with no included bullet are left out.
// - Sections follow each other without blank lines. Each header and bullet line then ends its own
//   pre-token run of the o200k tokenizer, so `tokens` (a sum of per-line counts) is exactly what
//   the whole text tokenizes to; a blank line would merge with the newline before it.
// - Without counters, a bullet's tokens are its stored count (measured with counters) minus the
//   tokens of the counters it drops. The counters are their own pre-tokens (" helpful", "=", "3",
//   " harmful", "=", "0", " ::"), so the subtraction is exact, not an estimate (tested on the fixtures).
import { bulletsBySection, type PlaybookState } from "./delta";
import { bulletLines } from "./formats/ace-text";
import { bulletScore } from "./signals";
import { countBulletTokens, countSectionTokens, countTokens } from "./tokens";

export interface ContextBullet {
  externalId: string;
  content: string;
  helpful: number;
  harmful: number;
  neutral: number;
  countersKnown: boolean;
  /** Ranked before every bullet that is not. */
  pinned?: boolean;
  /** Tokens of the bullet's lines with counters (countBulletTokens); absent or below 0 when not counted yet. */
  tokenCount?: number;
}

export interface ContextSection {
  name: string;
  /** In playbook order. */
  bullets: ContextBullet[];
}

export interface ContextOptions {
  /** Most tokens the text may have (o200k_base). */
  tokenBudget: number;
  /** false: `[id] content` lines (ace-plain) instead of `[id] helpful=H harmful=K :: content`. */
  includeCounters: boolean;
  /**
   * Tokens of a bullet's lines with counters, for callers that keep counts elsewhere. Default: its
   * tokenCount, counted when below 0. Asked only for the bullets the cut reaches.
   */
  tokensWithCounters?: (bullet: ContextBullet) => number;
  /**
   * When the pinned bullets alone exceed the budget: "refuse" (the default) throws PinnedBudgetError;
   * "cut" cuts them by rank like the others (a prompt of the studio's own, never what agents are served).
   */
  pinnedOverflow?: "refuse" | "cut";
}

/** The pinned bullets alone do not fit the budget: no honest context can be served. */
export class PinnedBudgetError extends Error {
  override readonly name = "PinnedBudgetError";
  constructor(
    readonly budget: number,
    /** Tokens the pinned bullets take, with their sections' headers. */
    readonly pinnedTokens: number,
    readonly pinned: number,
  ) {
    super(
      `The ${pinned} pinned ${pinned === 1 ? "bullet takes" : "bullets take"} ${pinnedTokens.toLocaleString("en-US")} tokens, ` +
        `more than the budget of ${budget.toLocaleString("en-US")}; ask for at least ${pinnedTokens.toLocaleString("en-US")} tokens, or unpin bullets.`,
    );
  }
}

/** A playbook state's active bullets by section, in reading order: what compileContext takes. */
export function contextSectionsOf(state: PlaybookState): ContextSection[] {
  const groups = bulletsBySection(state);
  return state.sections.map((section) => ({
    name: section.name,
    bullets: (groups.get(section.id) ?? []).filter((bullet) => bullet.status === "active"),
  }));
}

export interface CompiledContext {
  /** ACE text: `## section` headers and bullet lines, ending with a newline; "" when nothing fits. */
  text: string;
  /** Tokens of `text`. */
  tokens: number;
  /** External ids in the text, by rank. */
  includedBullets: string[];
  /** External ids left out by the budget, by rank. */
  omittedBullets: string[];
}

/** Counters as the text shows them: a bullet without known counters is written as 0/0. */
function shownCounters(bullet: ContextBullet): { helpful: number; harmful: number; neutral: number } | null {
  return bullet.countersKnown ? { helpful: bullet.helpful, harmful: bullet.harmful, neutral: bullet.neutral } : null;
}

function rankScore(bullet: ContextBullet): number {
  return bullet.countersKnown ? bulletScore(bullet) : 0;
}

const counterTokenCache = new Map<string, number>();

/** Tokens of the counters part of a bullet line, the text between `[id]` and ` content`. */
function counterTokens(helpful: number, harmful: number): number {
  const key = `${helpful}/${harmful}`;
  let tokens = counterTokenCache.get(key);
  if (tokens === undefined) {
    tokens = countTokens(` helpful=${helpful} harmful=${harmful} ::`);
    if (counterTokenCache.size < 10_000) counterTokenCache.set(key, tokens);
  }
  return tokens;
}

/** Tokens of the bullet's lines (with their line break) in the chosen form. */
export function contextBulletTokens(
  bullet: ContextBullet,
  includeCounters: boolean,
  withCounters = bullet.tokenCount !== undefined && bullet.tokenCount >= 0 ? bullet.tokenCount : countBulletTokens(bullet),
): number {
  if (includeCounters) return withCounters;
  const shown = shownCounters(bullet) ?? { helpful: 0, harmful: 0 };
  return withCounters - counterTokens(shown.helpful, shown.harmful);
}

interface Ranked {
  bullet: ContextBullet;
  section: number;
  /** Position in reading order across the playbook: the tie-breaker. */
  order: number;
  score: number;
}

export function compileContext(
  sections: readonly ContextSection[],
  { tokenBudget, includeCounters, tokensWithCounters, pinnedOverflow = "refuse" }: ContextOptions,
): CompiledContext {
  const ranked: Ranked[] = [];
  sections.forEach((section, index) => {
    for (const bullet of section.bullets) {
      ranked.push({ bullet, section: index, order: ranked.length, score: rankScore(bullet) });
    }
  });
  ranked.sort((a, b) => {
    const pinned = Number(b.bullet.pinned === true) - Number(a.bullet.pinned === true);
    if (pinned !== 0) return pinned;
    return (a.bullet.pinned ? 0 : b.score - a.score) || a.order - b.order;
  });
  const costOf = (entry: Ranked, opensSection: boolean) =>
    contextBulletTokens(entry.bullet, includeCounters, tokensWithCounters?.(entry.bullet)) +
    (opensSection ? countSectionTokens((sections[entry.section] as ContextSection).name) : 0);

  const chosen: Ranked[][] = sections.map(() => []);
  let tokens = 0;
  let cut = ranked.length;
  for (let rank = 0; rank < ranked.length; rank++) {
    const entry = ranked[rank] as Ranked;
    const cost = costOf(entry, chosen[entry.section]?.length === 0);
    if (tokens + cost > tokenBudget) {
      if (entry.bullet.pinned && pinnedOverflow === "refuse") throw pinnedOverflowError(ranked, tokenBudget, costOf);
      cut = rank;
      break;
    }
    tokens += cost;
    chosen[entry.section]?.push(entry);
  }

  const format = includeCounters ? "ace" : "ace-plain";
  const lines: string[] = [];
  sections.forEach((section, index) => {
    const included = chosen[index] ?? [];
    if (included.length === 0) return;
    lines.push(`## ${section.name}`);
    for (const { bullet } of included) {
      lines.push(...bulletLines({ id: bullet.externalId, content: bullet.content, counters: shownCounters(bullet) }, format));
    }
  });

  return {
    text: lines.length === 0 ? "" : `${lines.join("\n")}\n`,
    tokens,
    includedBullets: ranked.slice(0, cut).map((entry) => entry.bullet.externalId),
    omittedBullets: ranked.slice(cut).map((entry) => entry.bullet.externalId),
  };
}

/** The error naming what every pinned bullet takes (they rank first, so they are a prefix of the ranking). */
function pinnedOverflowError(ranked: readonly Ranked[], budget: number, costOf: (entry: Ranked, opensSection: boolean) => number) {
  const opened = new Set<number>();
  let tokens = 0;
  let pinned = 0;
  for (const entry of ranked) {
    if (!entry.bullet.pinned) break;
    tokens += costOf(entry, !opened.has(entry.section));
    opened.add(entry.section);
    pinned += 1;
  }
  return new PinnedBudgetError(budget, tokens, pinned);
}
