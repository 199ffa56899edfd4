// Token counts for playbook budgets (the middleware's playbook_token_budget). Uses the o200k_base
// encoding of the current OpenAI models. gpt-tokenizer ships the ranks (nothing is fetched) and
// counts 3-5x faster than js-tiktoken with identical results, which matters at 10,000 bullets.
import { countTokens as countO200k } from "gpt-tokenizer/encoding/o200k_base";
import { bulletLines } from "./formats/ace-text";

export const TOKEN_ENCODING = "o200k_base";

/** Special-token text such as "<|endoftext|>" counts as ordinary text: playbooks are data, not control input. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string): number {
  if (text === "") return 0;
  return countO200k(text, AS_TEXT);
}

export interface TokenCountedBullet {
  externalId: string;
  content: string;
  helpful: number;
  harmful: number;
  countersKnown: boolean;
}

/**
 * Tokens of a bullet as it stands in the compiled playbook (ACE text with counters, plus its line
 * break). Stored per bullet so a playbook's total is a sum, not a re-tokenisation of megabytes.
 */
export function countBulletTokens(bullet: TokenCountedBullet): number {
  return countTokens(compiledBulletText(bullet));
}

// A bullet state is never changed once made (a new version shares the objects of the bullets it did
// not change), so its count is kept with the object: whoever asks first (the budget check, the
// version's figures, the row written, the compiled context) counts it, the others read it. Only for
// such objects: a count kept for an object that changes afterwards would be wrong.
const tokensOfState = new WeakMap<TokenCountedBullet, number>();

/** countBulletTokens of a bullet state, counted once per state object. */
export function stateTokens(bullet: TokenCountedBullet): number {
  let tokens = tokensOfState.get(bullet);
  if (tokens === undefined) {
    tokens = countBulletTokens(bullet);
    tokensOfState.set(bullet, tokens);
  }
  return tokens;
}

/** Whether `after` has another line text than `before`, so another count: what countBulletTokens reads of it changed. */
export function changesCountedText(before: TokenCountedBullet, after: TokenCountedBullet): boolean {
  return (
    before.externalId !== after.externalId ||
    before.content !== after.content ||
    before.helpful !== after.helpful ||
    before.harmful !== after.harmful ||
    before.countersKnown !== after.countersKnown
  );
}

/** Whether the state's count is known (stateTokens will not tokenize it). */
export function hasStateTokens(bullet: TokenCountedBullet): boolean {
  return tokensOfState.has(bullet);
}

/** Takes a count stored with the bullet's row, read at the state's version, as the state's. */
export function adoptStateTokens(bullet: TokenCountedBullet, tokens: number): void {
  tokensOfState.set(bullet, tokens);
}

/** A bullet's lines in the compiled playbook (ACE text with counters), with its line break. */
export function compiledBulletText(bullet: TokenCountedBullet): string {
  const counters = bullet.countersKnown ? { helpful: bullet.helpful, harmful: bullet.harmful, neutral: 0 } : null;
  const lines = bulletLines({ id: bullet.externalId, content: bullet.content, counters }, "ace");
  return `${lines.join("\n")}\n`;
}

/** Tokens of a section header line in the compiled playbook. */
export function countSectionTokens(name: string): number {
  return countTokens(`## ${name}\n`);
}
