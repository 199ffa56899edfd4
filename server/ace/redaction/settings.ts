// What a playbook redacts: built-in kinds on or off (secrets and cards on by default, the rest
// opt-in) and custom patterns. Validated here so the settings form, tRPC and ingestion agree.
import { z } from "zod";
import { createRedactor, type BuiltInKind, type Redactor } from "./detectors";
import { compilePatterns, MAX_CUSTOM_PATTERNS, patternNameProblem, patternProblem } from "./patterns";

export const customPatternSchema = z.object({ name: z.string().trim(), pattern: z.string() }).superRefine((value, ctx) => {
  const nameProblem = patternNameProblem(value.name);
  if (nameProblem) ctx.addIssue({ code: "custom", path: ["name"], message: `The pattern name "${value.name}" ${nameProblem}` });
  const problem = patternProblem(value.pattern);
  if (problem) ctx.addIssue({ code: "custom", path: ["pattern"], message: `The pattern "${value.name}" ${problem}` });
});

export const customPatternsSchema = z
  .array(customPatternSchema)
  .max(MAX_CUSTOM_PATTERNS, `At most ${MAX_CUSTOM_PATTERNS} custom patterns.`)
  .superRefine((patterns, ctx) => {
    const seen = new Set<string>();
    patterns.forEach((pattern, index) => {
      if (seen.has(pattern.name))
        ctx.addIssue({ code: "custom", path: [index, "name"], message: `Two custom patterns are named "${pattern.name}".` });
      seen.add(pattern.name);
    });
  });

export const redactionSettingsSchema = z.object({
  secrets: z.boolean().default(true),
  cards: z.boolean().default(true),
  emails: z.boolean().default(false),
  phones: z.boolean().default(false),
  ibans: z.boolean().default(false),
  /** US social security numbers: opt-in, as nine digits in that shape are often something else. */
  ssns: z.boolean().default(false),
  customPatterns: customPatternsSchema.default([]),
});
export type RedactionSettings = z.infer<typeof redactionSettingsSchema>;

const shape = redactionSettingsSchema.shape;
/** A change: only the keys sent; customPatterns replaces the whole list. */
export const redactionSettingsPatchSchema = z.strictObject({
  secrets: shape.secrets.unwrap().optional(),
  cards: shape.cards.unwrap().optional(),
  emails: shape.emails.unwrap().optional(),
  phones: shape.phones.unwrap().optional(),
  ibans: shape.ibans.unwrap().optional(),
  ssns: shape.ssns.unwrap().optional(),
  customPatterns: customPatternsSchema.optional(),
});

const KIND_OF_SETTING = {
  secrets: "secret",
  cards: "card",
  emails: "email",
  phones: "phone",
  ibans: "iban",
  ssns: "ssn",
} as const satisfies Record<string, BuiltInKind>;

/** The redactor a playbook's settings describe (custom patterns compiled once and cached). */
export function redactorFor(settings: RedactionSettings): Redactor {
  const kinds = (Object.keys(KIND_OF_SETTING) as (keyof typeof KIND_OF_SETTING)[])
    .filter((key) => settings[key])
    .map((key) => KIND_OF_SETTING[key]);
  return createRedactor(kinds, compilePatterns(settings.customPatterns));
}
