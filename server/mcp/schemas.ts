// The MCP tools' contract: what a coding agent sends (zod, turned into the JSON Schema the tools
// list shows) and what it gets back. Messages name the argument and say what to send instead,
// because the reader is a model that will retry with them.
import { z } from "zod";
import { MAX_CONTEXT_BUDGET } from "../context/schemas";
import { bulletIdSchema, MAX_CITED_BULLETS, MAX_TRACE_TEXT, TRACE_OUTCOMES } from "../traces/schemas";

export const SEARCH_DEFAULT_K = 5;
export const SEARCH_MAX_K = 50;
export const QUERY_MAX = 2_000;
export const LESSON_MAX = 20_000;
export const RATIONALE_MAX = 2_000;
export const FEEDBACK_MAX = 20_000;

const playbook = z
  .string({ error: "playbook is the playbook's name, as text." })
  .trim()
  .min(1, "playbook is empty: name the playbook (its name in ACE Studio; the resources list shows them as playbook://<name>).")
  .max(120, "playbook is at most 120 characters: it is a playbook's name.")
  .optional()
  .describe(
    'The playbook\'s name in ACE Studio, e.g. "Customer service (demo)". Optional when this MCP server was started for one playbook.',
  );

const section = (what: string) =>
  z
    .string({ error: `section is a section's name, as text.` })
    .trim()
    .min(1, `section is empty: ${what}`)
    .max(200, "section is at most 200 characters.");

export const searchBulletsShape = {
  playbook,
  query: z
    .string({ error: "query is text: the task or the problem, in a few words." })
    .trim()
    .min(1, 'query is empty: describe the task or the problem in a few words, e.g. "retry a flaky HTTP call".')
    .max(QUERY_MAX, `query is at most ${QUERY_MAX.toLocaleString("en")} characters: describe the task in a few words.`)
    .describe("What you are about to do or the problem you face, in a few words."),
  section: section("leave it out to search every section.").optional().describe("Only bullets of this section (its name)."),
  k: z
    .number({ error: `k is a whole number from 1 to ${SEARCH_MAX_K}.` })
    .int(`k is a whole number from 1 to ${SEARCH_MAX_K}.`)
    .min(1, `k is out of range: it is from 1 to ${SEARCH_MAX_K}.`)
    .max(SEARCH_MAX_K, `k is out of range: it is from 1 to ${SEARCH_MAX_K}.`)
    .default(SEARCH_DEFAULT_K)
    .describe(`How many bullets at most (1–${SEARCH_MAX_K}, default ${SEARCH_DEFAULT_K}).`),
};

export const getPlaybookShape = {
  playbook,
  budget: z
    .number({ error: "budget is a whole number of tokens, e.g. 8000." })
    .int("budget is a whole number of tokens, e.g. 8000.")
    .min(0, "budget cannot be negative.")
    .max(MAX_CONTEXT_BUDGET, `budget is at most ${MAX_CONTEXT_BUDGET.toLocaleString("en")} tokens.`)
    .optional()
    .describe("Most tokens (o200k) the context may have; the lowest-ranked bullets are left out first. Default: the playbook's budget."),
  counters: z
    .boolean({ error: "counters is true or false." })
    .default(true)
    .describe("false leaves the helpful/harmful counters out of the bullet lines."),
};

export const recordOutcomeShape = {
  playbook,
  task: z
    .string({ error: "task is text: what you were asked to do." })
    .trim()
    .min(1, "task is empty: say what you were asked to do, in a sentence or two.")
    .max(MAX_TRACE_TEXT, `task is at most ${MAX_TRACE_TEXT.toLocaleString("en")} characters.`)
    .describe("What you were asked to do."),
  outcome: z
    .enum(TRACE_OUTCOMES, { error: `outcome is one of ${TRACE_OUTCOMES.map((o) => `"${o}"`).join(", ")}.` })
    .describe("success: the task is done and checked; failure: it is not, or a check failed; unknown: you cannot tell."),
  citedBulletIds: z
    .array(bulletIdSchema, { error: 'citedBulletIds is a list of bullet ids, e.g. ["str-00001"].' })
    .max(MAX_CITED_BULLETS, `citedBulletIds has at most ${MAX_CITED_BULLETS} ids.`)
    .optional()
    .describe(
      "Ids of the playbook's bullets you used (without brackets). Each must exist. Left out: ids cited as [id] in summary are taken.",
    ),
  summary: z
    .string()
    .max(MAX_TRACE_TEXT, `summary is at most ${MAX_TRACE_TEXT.toLocaleString("en")} characters.`)
    .optional()
    .describe("What you did and why, citing the bullets you followed as [str-00001]."),
  feedback: z
    .string()
    .max(FEEDBACK_MAX, `feedback is at most ${FEEDBACK_MAX.toLocaleString("en")} characters.`)
    .optional()
    .describe("What the environment or the person said about the result: review comments, the user's reaction."),
  testResults: z
    .string()
    .max(MAX_TRACE_TEXT, `testResults is at most ${MAX_TRACE_TEXT.toLocaleString("en")} characters.`)
    .optional()
    .describe("The test or build output you ran, when any (failing tests become lessons)."),
  errors: z
    .array(z.string().max(10_000, "An error is at most 10,000 characters."), { error: "errors is a list of error messages." })
    .max(100, "errors has at most 100 messages.")
    .optional()
    .describe("Error messages you met: tool errors, exceptions, failed commands."),
  externalId: z
    .string()
    .trim()
    .min(1, "externalId is empty: leave it out, or send your own id for this task run.")
    .max(200, "externalId is at most 200 characters.")
    .optional()
    .describe("Your own id for this run: the same id sent again stores the outcome once."),
};

export const proposeLessonShape = {
  playbook,
  content: z
    .string({ error: "content is the lesson, as text." })
    .trim()
    .min(1, "content is empty: write the lesson as one general, actionable sentence or two.")
    .max(LESSON_MAX, `content is at most ${LESSON_MAX.toLocaleString("en")} characters (the playbook's own limit is usually 1,000).`)
    .describe("The lesson: general and actionable, not tied to this one task (no file names, ids or numbers of this run)."),
  section: section("name the section the lesson belongs in (see get_playbook's ## headers).").describe(
    "The section's name (get_playbook shows them as ## headers). A new name proposes a new section.",
  ),
  rationale: z
    .string({ error: "rationale is text: why this lesson, for the reviewer." })
    .trim()
    .min(1, "rationale is empty: tell the reviewer what happened that taught this lesson.")
    .max(RATIONALE_MAX, `rationale is at most ${RATIONALE_MAX.toLocaleString("en")} characters.`)
    .describe("For the person who reviews it: what happened that taught this lesson."),
  traceId: z
    .uuid({ error: "traceId is the id record_outcome returned (a UUID)." })
    .optional()
    .describe("The traceId record_outcome returned for the task that taught it, as evidence."),
};

// ---- What the tools return (structuredContent) ----------------------------------------------------

export const foundBulletSchema = z.object({
  id: z.string(),
  section: z.string(),
  content: z.string(),
  helpful: z.number().int(),
  harmful: z.number().int(),
  neutral: z.number().int(),
  /** Similarity to the query in [0, 1]. */
  score: z.number(),
});
export type FoundBullet = z.infer<typeof foundBulletSchema>;

export const searchResultSchema = z.object({
  playbook: z.string(),
  version: z.number().int(),
  bullets: z.array(foundBulletSchema),
});
export type SearchResult = z.infer<typeof searchResultSchema>;

export const playbookContextSchema = z.object({
  playbook: z.string(),
  version: z.number().int(),
  tokens: z.number().int(),
  budget: z.number().int(),
  bulletCount: z.number().int(),
  includedBullets: z.number().int(),
  omittedBullets: z.number().int(),
  context: z.string(),
});

export const recordedOutcomeSchema = z.object({
  traceId: z.string(),
  status: z.enum(["created", "duplicate"]),
  playbook: z.string(),
  citedBulletIds: z.array(z.string()),
});
export type RecordedOutcome = z.infer<typeof recordedOutcomeSchema>;

export const proposedLessonSchema = z.object({
  deltaId: z.string(),
  status: z.literal("pending"),
  playbook: z.string(),
  section: z.string(),
  newSection: z.boolean(),
  nearDuplicates: z.array(z.object({ id: z.string(), content: z.string(), similarity: z.number() })),
  message: z.string(),
});
export type ProposedLesson = z.infer<typeof proposedLessonSchema>;

export const bulletResourceSchema = z.object({
  playbook: z.string(),
  version: z.number().int(),
  id: z.string(),
  section: z.string(),
  content: z.string(),
  status: z.enum(["active", "archived"]),
  helpful: z.number().int(),
  harmful: z.number().int(),
  neutral: z.number().int(),
  mergedInto: z.string().nullable(),
});
export type BulletResource = z.infer<typeof bulletResourceSchema>;
