// The reply the Reflector must give: the diagnosis of one agent run and a tag for each playbook
// bullet it cited. Every field required, objects closed, no unions: expressible as an OpenAI strict
// output schema.
import { z } from "zod";

export const BULLET_TAGS = ["helpful", "harmful", "neutral"] as const;
export type BulletTag = (typeof BULLET_TAGS)[number];

/** Longest fields of a reflection, in characters; generous, since a reply over them fails to parse. */
export const REFLECTION_LIMITS = {
  reasoning: 8000,
  field: 3000,
  keyInsight: 1500,
  bulletId: 120,
  justification: 600,
  bulletTags: 100,
} as const;

export const reflectionSchema = z.strictObject({
  reasoning: z.string().max(REFLECTION_LIMITS.reasoning),
  errorIdentification: z.string().max(REFLECTION_LIMITS.field),
  rootCause: z.string().max(REFLECTION_LIMITS.field),
  correctApproach: z.string().max(REFLECTION_LIMITS.field),
  keyInsight: z.string().max(REFLECTION_LIMITS.keyInsight),
  bulletTags: z
    .array(
      z.strictObject({
        id: z.string().max(REFLECTION_LIMITS.bulletId),
        tag: z.enum(BULLET_TAGS),
        justification: z.string().max(REFLECTION_LIMITS.justification),
      }),
    )
    .max(REFLECTION_LIMITS.bulletTags),
});
export type Reflection = z.infer<typeof reflectionSchema>;
