// The reply the Curator must give: a few small delta operations (ADD, UPDATE, REMOVE, MERGE), each
// with its rationale and confidence. Every field required (unused ones are "" or []), objects
// closed, no unions: expressible as an OpenAI strict output schema.
import { z } from "zod";

export const CURATOR_OPERATION_TYPES = ["ADD", "UPDATE", "REMOVE", "MERGE"] as const;
export type CuratorOperationType = (typeof CURATOR_OPERATION_TYPES)[number];

/** A curation proposes at most this many operations: small deltas, not rewrites. */
export const MAX_CURATOR_OPERATIONS = 20;

/**
 * Longest fields, in characters. Content may exceed the engine's bullet limit (1000 by default):
 * the engine then reports that one operation, instead of the whole reply failing to parse.
 */
export const CURATOR_LIMITS = {
  reasoning: 8000,
  section: 200,
  content: 4000,
  bulletId: 120,
  bulletIds: 20,
  rationale: 1000,
} as const;

export const curatorOutputSchema = z.strictObject({
  reasoning: z.string().max(CURATOR_LIMITS.reasoning),
  operations: z
    .array(
      z.strictObject({
        type: z.enum(CURATOR_OPERATION_TYPES),
        section: z.string().max(CURATOR_LIMITS.section),
        content: z.string().max(CURATOR_LIMITS.content),
        bulletIds: z.array(z.string().max(CURATOR_LIMITS.bulletId)).max(CURATOR_LIMITS.bulletIds),
        rationale: z.string().max(CURATOR_LIMITS.rationale),
        confidence: z.number().min(0).max(1),
      }),
    )
    .max(MAX_CURATOR_OPERATIONS),
});
export type CuratorOutput = z.infer<typeof curatorOutputSchema>;
export type CuratorOperation = CuratorOutput["operations"][number];
