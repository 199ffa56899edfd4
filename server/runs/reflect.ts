// The reflector's run: read one trace and the bullets it cited, diagnose it (a model, or the offline
// rules), and turn its bullet tags into a TAG delta that updates the counters.
import { reflectionTagsToOperations } from "@/server/ace/curation/to-delta";
import { reflectOffline, type OfflineReflection } from "@/server/ace/reflection/offline";
import { buildReflectorMessages } from "@/server/ace/reflection/prompt";
import { z } from "zod";
import { BULLET_TAGS, reflectionSchema, type Reflection } from "@/server/ace/reflection/schema";
import type { CitedBullet, ReflectorTrace, TraceFeedback } from "@/server/ace/reflection/trace";
import { sanitizeModelText } from "@/server/ace/safety";
import { loadSnapshot } from "@/server/deltas/engine-state";
import { proposeDelta } from "@/server/deltas/propose";
import { systemWho } from "@/server/audit/record";
import { proposeDeltaInput } from "@/server/deltas/schemas";
import { LeaseLost, RunRejected, type Exchange, type RoleResult, type RunContext } from "./execution";
import * as repo from "./repository";

/** What a reflector run stores as its output: the reflection, and offline, its candidate lessons. */
export type StoredReflection = Reflection & { lessons?: OfflineReflection["lessons"] };

/**
 * A reflector run's stored output, as the curator reads it back: the reflection's fields without the
 * model-facing limits (they were applied when it was written), and the offline lessons.
 */
export const storedReflectionSchema = z.object({
  reasoning: z.string(),
  errorIdentification: z.string(),
  rootCause: z.string(),
  correctApproach: z.string(),
  keyInsight: z.string(),
  bulletTags: z.array(z.object({ id: z.string(), tag: z.enum(BULLET_TAGS), justification: z.string() })),
  lessons: z.array(z.object({ section: z.string(), content: z.string(), evidence: z.string(), general: z.string().optional() })).optional(),
}) satisfies z.ZodType<StoredReflection>;

/** A trace's stored feedback, as ingest checked it (null for a field left out). */
const storedFeedbackSchema = z.object({
  groundTruth: z
    .string()
    .nullish()
    .transform((value) => value ?? undefined),
  errors: z
    .array(z.string())
    .nullish()
    .transform((value) => value ?? undefined),
  testResults: z
    .string()
    .nullish()
    .transform((value) => value ?? undefined),
  notes: z
    .string()
    .nullish()
    .transform((value) => value ?? undefined),
}) satisfies z.ZodType<TraceFeedback>;

const TEXT_FIELDS = ["reasoning", "errorIdentification", "rootCause", "correctApproach", "keyInsight"] as const;
const FIELD_LIMIT = 4_000;

/** Model output is untrusted: control and invisible characters go, lengths are capped. */
function cleanReflection(reflection: Reflection): Reflection {
  const cleaned = { ...reflection };
  for (const field of TEXT_FIELDS) cleaned[field] = sanitizeModelText(reflection[field], { maxLength: FIELD_LIMIT });
  cleaned.bulletTags = reflection.bulletTags.map((tag) => ({
    ...tag,
    id: tag.id.trim().replace(/^\[|\]$/g, ""),
    justification: sanitizeModelText(tag.justification, { maxLength: 1_000 }),
  }));
  return cleaned;
}

function feedbackOf(stored: unknown): TraceFeedback {
  if (stored === null || stored === undefined) return {};
  const parsed = storedFeedbackSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RunRejected(
    `The trace's stored feedback cannot be read (${issue?.path.join(".") || "feedback"}: ${issue?.message ?? "invalid"}).`,
  );
}

async function reflectWithModel(
  context: RunContext,
  exchange: Exchange,
  trace: ReflectorTrace,
  citedBullets: CitedBullet[],
): Promise<Reflection> {
  let reflection: Reflection | undefined;
  for (let round = 1; round <= context.settings.reflectorRounds; round += 1) {
    const messages = buildReflectorMessages({ trace, citedBullets, previousReflection: reflection, round });
    const answer = await exchange.complete({ purpose: "reflector", messages, schema: reflectionSchema, schemaName: "reflection" });
    if (!answer.parsed.ok) {
      throw new RunRejected(`The reflector's answer in round ${round} could not be used: ${answer.parsed.error}`);
    }
    reflection = cleanReflection(answer.parsed.value);
  }
  if (!reflection) throw new RunRejected("The reflector ran no round.");
  return reflection;
}

export async function reflectTrace(context: RunContext, exchange: Exchange, traceId: string): Promise<RoleResult> {
  const { db, provider, playbookId, runId } = context;
  const stored = await repo.findTraceForReflection(db, traceId);
  if (!stored) throw new RunRejected("The trace was deleted before it could be reflected.");
  const trace: ReflectorTrace = {
    task: stored.task,
    reasoning: stored.reasoning,
    output: stored.output,
    outcome: stored.outcome,
    feedback: feedbackOf(stored.feedback),
    citedBulletIds: stored.citedBulletIds,
  };
  const citedBullets = await repo.citedBullets(db, playbookId, stored.citedBulletIds);

  const reflection: StoredReflection =
    provider.name === "offline"
      ? (() => {
          exchange.prompt.push({ rules: "offline reflector", trace, citedBullets });
          const result = reflectOffline(trace, citedBullets);
          exchange.rawResponse.push(JSON.stringify(result));
          return result;
        })()
      : await reflectWithModel(context, exchange, trace, citedBullets);

  // A worker that died after proposing left its delta behind: use it, never tag twice.
  let deltaId = await repo.deltaOfRun(db, runId);
  if (!deltaId) {
    const snapshot = await loadSnapshot(db, playbookId);
    const tags = reflectionTagsToOperations(reflection, snapshot.entry.state);
    const justification = new Map(reflection.bulletTags.map((tag) => [tag.id, tag.justification]));
    if (tags.length > 0) {
      // Tags are counted once: not by a worker whose job another one took while it was held up.
      if (!(await context.holdsLease())) throw new LeaseLost("The job's lease went to another worker before the tags were written.");
      const outcome = await proposeDelta(
        db,
        systemWho(`reflector (${provider.label})`),
        proposeDeltaInput.parse({
          playbookId,
          // The trace's id, not its task: a delta outlives an erased trace, and must not quote it.
          rationale: `Counter tags from the reflection of trace ${traceId} (outcome: ${trace.outcome}).`,
          operations: tags.map((operation) => ({ operation, rationale: justification.get(operation.bulletId) ?? "" })),
          evidence: { traceIds: [traceId], runIds: [runId], notes: reflection.keyInsight },
        }),
        { origin: "reflector" },
      );
      deltaId = outcome.deltaId;
    }
  }
  await repo.markTraceReflected(db, traceId);
  return { output: reflection, deltaId };
}
