// The compiled context's wire contract: options an agent passes and what it gets back. The same
// schemas validate the tRPC input, the query of GET /api/v1/playbooks/{name}/context and generate
// its OpenAPI document. The one file of server/context that client code may import.
import { z } from "zod";

export const CONTEXT_FORMATS = ["json", "text"] as const;
export type ContextFormat = (typeof CONTEXT_FORMATS)[number];
/** The playbook setting's own ceiling (playbookSettingsSchema.tokenBudget). */
export const MAX_CONTEXT_BUDGET = 2_000_000;

const budgetSchema = z
  .number({ error: "budget is a whole number of tokens, e.g. budget=8000." })
  .int("budget is a whole number of tokens, e.g. budget=8000.")
  .min(0, "budget cannot be negative.")
  .max(MAX_CONTEXT_BUDGET, `budget is at most ${MAX_CONTEXT_BUDGET.toLocaleString("en")} tokens.`)
  .describe("Most tokens (o200k_base) the context may have. Default: the playbook's token budget setting.");

const countersSchema = z
  .boolean({ error: "counters is true or false." })
  .describe("false leaves the helpful/harmful counters out of the bullet lines.");

export const contextOptionsSchema = z.object({
  budget: budgetSchema.optional(),
  counters: countersSchema.default(true),
  format: z
    .enum(CONTEXT_FORMATS, { error: 'format is "json" or "text".' })
    .default("json")
    .describe("text: the context alone, as text/plain; json: the context with its counts."),
});
export type ContextOptions = z.output<typeof contextOptionsSchema>;

const TRUE_WORDS = new Set(["true", "1", "yes"]);
const FALSE_WORDS = new Set(["false", "0", "no"]);

/**
 * Query parameters are text: numbers and booleans are converted here and anything else is passed
 * on as the text it was, so the schema reports it with the parameter's name.
 */
export function parseContextQuery(params: URLSearchParams): ContextOptions {
  const budget = params.get("budget")?.trim() || undefined;
  const counters = params.get("counters")?.trim().toLowerCase() || undefined;
  return contextOptionsSchema.parse({
    budget: budget !== undefined && /^\d+$/.test(budget) ? Number(budget) : budget,
    counters: counters === undefined ? undefined : TRUE_WORDS.has(counters) ? true : FALSE_WORDS.has(counters) ? false : counters,
    format: params.get("format")?.trim() || undefined,
  });
}

/** tRPC: the studio previews a playbook's context by id. */
export const playbookContextInput = z.object({
  playbookId: z.uuid(),
  budget: budgetSchema.optional(),
  counters: countersSchema.default(true),
});

export const contextResultSchema = z.object({
  playbook: z.string().describe("The playbook's name."),
  version: z.number().int().describe("The playbook version the context was compiled from."),
  tokens: z.number().int().describe("Tokens of context (o200k_base)."),
  budget: z.number().int(),
  bulletCount: z.number().int().describe("Active bullets in the playbook."),
  includedBullets: z.number().int(),
  omittedBullets: z.number().int().describe("Active bullets left out by the budget: the lowest ranked by helpful − harmful."),
  context: z.string().describe("ACE text: `## section` headers and `[id] helpful=H harmful=K :: content` lines."),
});
export type ContextResult = z.infer<typeof contextResultSchema>;
