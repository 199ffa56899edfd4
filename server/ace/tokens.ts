// Token counts for playbook budgets (the middleware's playbook_token_budget). Uses the o200k_base
// encoding of the current OpenAI models; the ranks ship with js-tiktoken, so nothing is fetched.
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";

export const TOKEN_ENCODING = "o200k_base";

let encoder: Tiktoken | undefined;

// Building the encoder expands several megabytes of ranks, so it happens once, on first use.
function getEncoder(): Tiktoken {
  encoder ??= new Tiktoken(o200kBase);
  return encoder;
}

/** Special-token text such as "<|endoftext|>" counts as ordinary text: playbooks are data, not control input. */
export function countTokens(text: string): number {
  if (text === "") return 0;
  return getEncoder().encode(text, [], []).length;
}
