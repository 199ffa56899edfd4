// The curator's run: the reflections since the last curation, the playbook ranked and cut to a
// budget, and its statistics go in; a proposed delta (or one applied above the threshold) comes out.
// The deterministic engine validates, de-duplicates and checks conflicts; nothing rewrites the playbook.
import { compileContext, contextSectionsOf } from "@/server/ace/context";
import { curateOffline } from "@/server/ace/curation/offline";
import { buildCuratorMessages, type CuratorReflection } from "@/server/ace/curation/prompt";
import { curatorOutputSchema, type CuratorOutput } from "@/server/ace/curation/schema";
import { curatorOperationsToDelta } from "@/server/ace/curation/to-delta";
import type { PlaybookState } from "@/server/ace/delta/types";
import type { CandidateLesson } from "@/server/ace/reflection/offline";
import { sanitizeModelText } from "@/server/ace/safety";
import { systemWho } from "@/server/audit/record";
import { bulletScore } from "@/server/ace/signals";
import { loadSnapshot } from "@/server/deltas/engine-state";
import { proposeDelta, proposePruningDelta } from "@/server/deltas/propose";
import { proposeDeltaInput } from "@/server/deltas/schemas";
import { RunRejected, type Exchange, type RoleResult, type RunContext } from "./execution";
import { storedReflectionSchema } from "./reflect";
import { embeddingSimilarity } from "./embeddings";
import * as repo from "./repository";

/** Reflections one curator run reads at most; the rest wait for the next run. */
export const CURATOR_BATCH = 50;
/**
 * Tokens of playbook the curator sees: with the reflections and the rules this keeps a
 * reflection-and-curation cycle under the design documents' 8,000 tokens.
 */
export const CURATOR_PLAYBOOK_TOKENS = 3_000;

function statsOf(state: PlaybookState, tokenCount: number, tokenBudget: number) {
  const active = [...state.bullets.values()].filter((bullet) => bullet.status === "active");
  const perSection = new Map<string, number>();
  for (const bullet of active) perSection.set(bullet.sectionId, (perSection.get(bullet.sectionId) ?? 0) + 1);
  const summary = (bullet: (typeof active)[number]) => ({
    id: bullet.externalId,
    content: bullet.content,
    helpful: bullet.helpful,
    harmful: bullet.harmful,
  });
  const ranked = [...active].sort((a, b) => bulletScore(b) - bulletScore(a));
  return {
    bulletCount: active.length,
    tokenCount,
    tokenBudget,
    sections: state.sections.map((section) => ({ name: section.name, bullets: perSection.get(section.id) ?? 0 })),
    mostHelpful: ranked
      .filter((bullet) => bulletScore(bullet) > 0)
      .slice(0, 5)
      .map(summary),
    mostHarmful: ranked
      .filter((bullet) => bulletScore(bullet) < 0)
      .reverse()
      .slice(0, 5)
      .map(summary),
  };
}

async function curateWithModel(
  exchange: Exchange,
  reflections: CuratorReflection[],
  state: PlaybookState,
  tokenBudget: number,
): Promise<CuratorOutput> {
  // The curator's own prompt: pinned bullets beyond its budget are cut like any other, never a failed run.
  const compiled = compileContext(contextSectionsOf(state), {
    tokenBudget: CURATOR_PLAYBOOK_TOKENS,
    includeCounters: true,
    pinnedOverflow: "cut",
  });
  const messages = buildCuratorMessages({
    reflections,
    compiledPlaybook: compiled.text,
    stats: statsOf(state, compiled.tokens, tokenBudget),
    sectionNames: state.sections.map((section) => section.name),
  });
  const answer = await exchange.complete({ purpose: "curator", messages, schema: curatorOutputSchema, schemaName: "curation" });
  if (!answer.parsed.ok) throw new RunRejected(`The curator's answer could not be used: ${answer.parsed.error}`);
  return answer.parsed.value;
}

export async function curatePlaybook(context: RunContext, exchange: Exchange): Promise<RoleResult> {
  const { db, provider, playbookId, runId, settings } = context;
  // The curator acts as the system; its changes are audited under this name.
  const curator = systemWho(`curator (${provider.label})`);
  const pending = await repo.uncuratedReflections(db, playbookId, CURATOR_BATCH);
  const traces = new Map(
    (
      await repo.findTraces(
        db,
        pending.flatMap((run) => run.traceIds),
      )
    ).map((trace) => [trace.id, trace]),
  );
  const notes: string[] = [];
  // In trace order, not in the order reflections finished: the same traces give the same proposal.
  const reflections = pending
    .flatMap((run) => {
      const parsed = storedReflectionSchema.safeParse(run.output);
      if (!parsed.success) {
        // Left out rather than blocking every later curation; the run's notes say which and why.
        const issue = parsed.error.issues[0];
        notes.push(
          `The reflection of run ${run.id} was left out: its stored output cannot be read (${issue?.path.join(".") || "output"}: ${issue?.message ?? "invalid"}).`,
        );
        return [];
      }
      return [{ run, reflection: parsed.data, trace: traces.get(run.traceIds[0] ?? "") }];
    })
    .sort(
      (a, b) =>
        (a.trace?.createdAt.getTime() ?? 0) - (b.trace?.createdAt.getTime() ?? 0) || (a.trace?.id ?? "").localeCompare(b.trace?.id ?? ""),
    );
  await repo.setCuratorInputs(
    db,
    runId,
    pending.map((run) => run.id),
    pending.flatMap((run) => run.traceIds),
  );

  const snapshot = await loadSnapshot(db, playbookId);
  const state = snapshot.entry.state;
  let output: CuratorOutput;
  if (provider.name === "offline") {
    const lessons: CandidateLesson[] = reflections.flatMap(({ reflection }) => reflection.lessons ?? []);
    exchange.prompt.push({ rules: "offline curator", lessons });
    output = curateOffline({ lessons, state, similarityThreshold: settings.similarityThreshold });
    exchange.rawResponse.push(JSON.stringify(output));
  } else {
    const forPrompt: CuratorReflection[] = reflections.map(({ reflection, trace }) => ({
      traceTask: trace?.task ?? "",
      outcome: trace?.outcome ?? "unknown",
      reflection,
    }));
    output = await curateWithModel(exchange, forPrompt, state, settings.tokenBudget);
  }

  // Suspected injections are kept and flagged: a person decides, and the delta never applies itself.
  const { operations, sources, problems } = curatorOperationsToDelta(output, state, { keepSuspectedInjections: true });
  const sourceOf = (index: number) => output.operations[sources[index] ?? -1];
  const rationaleOf = (index: number) => sanitizeModelText(sourceOf(index)?.rationale ?? "", { maxLength: 2_000 });
  let deltaId = await repo.deltaOfRun(db, runId);
  if (!deltaId && operations.length > 0) {
    const newContents = operations.flatMap((operation) => ("content" in operation && operation.content ? [operation.content] : []));
    const embeddings = provider.name === "openai" ? await embeddingSimilarity(provider.llm, state, newContents) : { note: null };
    if (embeddings.note) notes.push(embeddings.note);
    const confidences = operations
      .map((_, index) => sourceOf(index)?.confidence)
      .filter((value): value is number => Number.isFinite(value));
    const outcome = await proposeDelta(
      db,
      curator,
      proposeDeltaInput.parse({
        playbookId,
        rationale: sanitizeModelText(output.reasoning, { maxLength: 10_000 }),
        // The delta is as sure as its least sure operation.
        confidence: confidences.length ? Math.min(...confidences) : null,
        operations: operations.map((operation, index) => ({ operation, rationale: rationaleOf(index) })),
        evidence: {
          traceIds: pending.flatMap((run) => run.traceIds).slice(0, 200),
          runIds: [runId, ...pending.map((run) => run.id)].slice(0, 200),
          notes: problems.join("\n"),
        },
      }),
      // Suspected injections are flagged by proposeDelta itself, as for every proposal.
      { origin: "curator", similarity: "similarity" in embeddings ? embeddings.similarity : undefined },
    );
    deltaId = outcome.deltaId;
    notes.push(outcome.message);
  } else if (operations.length === 0) {
    notes.push(pending.length === 0 ? "No new reflections to curate." : "The curator proposed no change.");
  }
  if (settings.pruning.enabled) {
    const pruning = await proposePruningDelta(db, curator, playbookId);
    notes.push(pruning.delta ? `Pruning: ${pruning.delta.message}` : `Pruning: ${pruning.reason}`);
  }
  await repo.markCurated(
    db,
    pending.map((run) => run.id),
    runId,
  );
  return { output: { ...output, problems, notes }, deltaId };
}
