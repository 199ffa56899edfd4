// What the MCP tools and resources do, on the same services the studio and /api/v1 use: the delta
// engine's cached playbook state and its near-duplicate index (search), the compiled context
// (get_playbook), trace ingestion (record_outcome, so the reflector and curator run as for any
// agent) and proposals (propose_lesson, a pending delta of origin "agent"). Every refusal is an
// AppError whose message names the argument; a refused call writes nothing.
import type { z } from "zod";
import { resolveSection, validateDelta, type PlaybookState } from "@/server/ace/delta";
import { findIllFormed } from "@/server/ace/well-formed";
import type { BulletState } from "@/server/ace/history";
import type { AuditSource } from "@/server/audit/record";
import { getPlaybookContext } from "@/server/context/service";
import type { ContextResult } from "@/server/context/schemas";
import type { Db } from "@/server/db/client";
import { engineOptions, freshSnapshot, loadSnapshot, similarityIndexOf } from "@/server/deltas/engine-state";
import { proposeDelta } from "@/server/deltas/propose";
import { AppError } from "@/server/errors/app-error";
import { listPlaybooks } from "@/server/playbooks/browse";
import * as playbookRepo from "@/server/playbooks/repository";
import { traceInputSchema } from "@/server/traces/schemas";
import { ingestTraces } from "@/server/traces/service";
import type {
  BulletResource,
  FoundBullet,
  getPlaybookShape,
  ProposedLesson,
  proposeLessonShape,
  RecordedOutcome,
  recordOutcomeShape,
  SearchResult,
  searchBulletsShape,
} from "./schemas";

type Args<Shape extends z.ZodRawShape> = z.output<z.ZodObject<Shape>>;

/** Who calls, and what they may touch: an /api/mcp request's key, or the CLI's local operator. */
export interface McpCaller {
  db: Db;
  /** The author name in version history, and the audit log's source. */
  who: { actor: string; audit: AuditSource };
  /** Refuses (FORBIDDEN) unless the caller may touch every named playbook. */
  allowPlaybooks(names: readonly string[]): Promise<void>;
  /** The playbooks the caller may see listed: "all", or their ids. */
  visiblePlaybooks: "all" | ReadonlySet<string>;
  /** The playbook a tool uses when its `playbook` argument is left out (stdio --playbook, /api/mcp?playbook=). */
  defaultPlaybook: string | null;
}

/**
 * The thresholds a search tries, highest first. The index stops reading postings once no unread
 * bullet can reach the threshold, so a high one is cheap; a search lowers it only while fewer than
 * k bullets reach it. Every bullet at or above a threshold is found, so the k best at the first
 * threshold that yields k are the k best overall. The last one is the floor: below it a score is
 * noise (a shared trigram or two), and a search returns fewer bullets rather than unrelated ones.
 * The n-gram score of a few-word query against a bullet that says the same at length is typically
 * 0.2–0.5.
 */
const SEARCH_THRESHOLDS = [0.3, 0.2, 0.1, 0.05] as const;

interface ResolvedPlaybook {
  id: string;
  name: string;
}

function quoted(names: readonly string[]): string {
  return names.map((name) => `"${name}"`).join(", ");
}

/** The playbooks this caller may see, for resource lists and for naming them in a refusal. */
export async function visiblePlaybooks(caller: McpCaller) {
  const all = await listPlaybooks(caller.db);
  const { visiblePlaybooks: visible } = caller;
  return visible === "all" ? all : all.filter((playbook) => visible.has(playbook.id));
}

async function resolvePlaybook(caller: McpCaller, given: string | undefined): Promise<ResolvedPlaybook> {
  const name = given ?? caller.defaultPlaybook;
  if (!name) {
    const names = (await visiblePlaybooks(caller)).map((playbook) => playbook.name);
    throw new AppError(
      "INVALID_INPUT",
      `Name the playbook: pass playbook${names.length > 0 ? `, one of ${quoted(names.slice(0, 20))}` : " (there is none yet: import one in ACE Studio)"}.`,
    );
  }
  // A name the databases cannot compare (a NUL) is refused naming the argument, as on /api/v1.
  const illFormed = findIllFormed({ playbook: name });
  if (illFormed) throw new AppError("INVALID_INPUT", illFormed.message, { details: { path: "playbook" } });
  const row = await playbookRepo.findPlaybookByName(caller.db, name);
  if (!row) {
    const names = (await visiblePlaybooks(caller)).map((playbook) => playbook.name);
    throw new AppError(
      "NOT_FOUND",
      `Unknown playbook "${name}": no playbook has that name (names are case-sensitive).` +
        (names.length > 0 ? ` The playbooks: ${quoted(names.slice(0, 20))}${names.length > 20 ? " …" : ""}.` : " There is none yet."),
      { details: { playbook: name } },
    );
  }
  // A key limited to other playbooks is refused by name (403), as on /api/v1.
  await caller.allowPlaybooks([row.name]);
  return { id: row.id, name: row.name };
}

function sectionNameOf(state: PlaybookState, bullet: BulletState): string {
  return state.sections.find((section) => section.id === bullet.sectionId)?.name ?? "";
}

/** The active bullets most similar to the query, best first, by the delta engine's near-duplicate index. */
export async function searchBullets(caller: McpCaller, args: Args<typeof searchBulletsShape>): Promise<SearchResult> {
  const playbook = await resolvePlaybook(caller, args.playbook);
  const { entry } = await loadSnapshot(caller.db, playbook.id);
  // Synchronous from here: the entry and its index cannot move under us (engine-state.ts).
  const { state } = entry;
  const section = args.section === undefined ? null : resolveSection(state.sections, args.section);
  if (args.section !== undefined && !section) {
    throw new AppError(
      "NOT_FOUND",
      `Unknown section "${args.section}" in the playbook "${playbook.name}". Its sections: ${quoted(state.sections.map((s) => s.name))}.`,
    );
  }
  const index = similarityIndexOf(entry);
  let found: { bullet: BulletState; score: number }[] = [];
  for (const threshold of SEARCH_THRESHOLDS) {
    // With a section, every match is ranked and the section's best k kept.
    const matches = index.query(args.query, { threshold, limit: section ? index.size : args.k });
    found = matches.flatMap((match) => {
      const bullet = state.bullets.get(match.bulletId);
      return bullet && bullet.status === "active" && (!section || bullet.sectionId === section.id) ? [{ bullet, score: match.score }] : [];
    });
    if (found.length >= args.k) break;
  }
  const bullets = found.slice(0, args.k).map(({ bullet, score }): FoundBullet => ({
    id: bullet.externalId,
    section: sectionNameOf(state, bullet),
    content: bullet.content,
    helpful: bullet.helpful,
    harmful: bullet.harmful,
    neutral: bullet.neutral,
    score: Math.round(score * 1000) / 1000,
  }));
  return { playbook: playbook.name, version: entry.version, bullets };
}

/** The compiled context, as GET /api/v1/playbooks/{name}/context?format=text gives it. */
export async function playbookContext(caller: McpCaller, args: Args<typeof getPlaybookShape>): Promise<ContextResult> {
  const playbook = await resolvePlaybook(caller, args.playbook);
  const { result } = await getPlaybookContext(
    caller.db,
    { playbookId: playbook.id },
    { budget: args.budget, includeCounters: args.counters, format: "text" },
  );
  return result;
}

/** The compiled context at the playbook's own budget, for the playbook://<name> resource. */
export function playbookResource(caller: McpCaller, name: string): Promise<ContextResult> {
  return playbookContext(caller, { playbook: name, counters: true });
}

/** One bullet, active or archived, for the bullet://<name>/<id> resource. */
export async function bulletResource(caller: McpCaller, name: string, bulletId: string): Promise<BulletResource> {
  const playbook = await resolvePlaybook(caller, name);
  const { entry } = await loadSnapshot(caller.db, playbook.id);
  const bullet = entry.state.bullets.get(bulletId);
  if (!bullet) throw unknownBullets(playbook.name, [bulletId]);
  return {
    playbook: playbook.name,
    version: entry.version,
    id: bullet.externalId,
    section: sectionNameOf(entry.state, bullet),
    content: bullet.content,
    status: bullet.status,
    helpful: bullet.helpful,
    harmful: bullet.harmful,
    neutral: bullet.neutral,
    mergedInto: bullet.mergedInto,
  };
}

function unknownBullets(playbook: string, ids: readonly string[]): AppError {
  return new AppError(
    "NOT_FOUND",
    `No bullet ${ids.map((id) => `[${id}]`).join(", ")} in the playbook "${playbook}": cite the ids search_bullets or get_playbook showed (without brackets). Nothing was stored.`,
    { details: { bulletIds: ids } },
  );
}

/**
 * Stores the outcome as a trace (POST /api/v1/traces does the same), so the reflector tags the cited
 * bullets and the curator learns from it as from any agent's run. Cited ids must exist.
 */
export async function recordOutcome(caller: McpCaller, args: Args<typeof recordOutcomeShape>): Promise<RecordedOutcome> {
  const playbook = await resolvePlaybook(caller, args.playbook);
  if (args.citedBulletIds && args.citedBulletIds.length > 0) {
    const { entry } = await loadSnapshot(caller.db, playbook.id);
    const missing = [...new Set(args.citedBulletIds)].filter((id) => !entry.state.bullets.has(id));
    if (missing.length > 0) throw unknownBullets(playbook.name, missing);
  }
  const feedback = {
    ...(args.feedback ? { notes: args.feedback } : {}),
    ...(args.testResults ? { testResults: args.testResults } : {}),
    ...(args.errors && args.errors.length > 0 ? { errors: args.errors } : {}),
  };
  const trace = traceInputSchema.parse({
    playbook: playbook.name,
    externalId: args.externalId,
    task: args.task,
    output: args.summary,
    citedBulletIds: args.citedBulletIds,
    outcome: args.outcome,
    feedback: Object.keys(feedback).length > 0 ? feedback : undefined,
    metadata: { via: "mcp" },
  });
  // Audited in the transaction that stores it: an agent's MCP call is its own act, unlike a batch post.
  const result = await ingestTraces(caller.db, [trace], { source: "api", who: caller.who });
  const stored = result.traces[0];
  if (!stored) throw new Error("ingestTraces returned no trace for one input.");
  return {
    traceId: stored.id,
    status: stored.status,
    playbook: playbook.name,
    citedBulletIds: args.citedBulletIds ?? [],
  };
}

/**
 * A lesson as a pending delta of origin "agent": one add (and an add_section for a section the
 * playbook lacks), checked by the delta engine first so that a lesson it refuses (too long, an
 * unusable section name) is a tool error and nothing is stored. Never applied without review.
 */
export async function proposeLesson(caller: McpCaller, args: Args<typeof proposeLessonShape>): Promise<ProposedLesson> {
  const playbook = await resolvePlaybook(caller, args.playbook);
  const snapshot = await freshSnapshot(caller.db, playbook.id);
  const { state } = snapshot.entry;
  const existing = resolveSection(state.sections, args.section);
  const sectionName = existing?.name ?? args.section;
  const add = { type: "add" as const, section: sectionName, content: args.content };
  const operations: (typeof add | { type: "add_section"; name: string })[] = [
    ...(existing ? [] : [{ type: "add_section" as const, name: sectionName }]),
    add,
  ];
  const validation = validateDelta(state, operations, engineOptions(snapshot, operations));
  const errors = validation.findings.filter((finding) => finding.severity === "error");
  if (errors.length > 0) {
    throw new AppError("INVALID_INPUT", `The lesson was not proposed: ${errors.map((finding) => finding.message).join(" ")}`);
  }
  const nearDuplicates = validation.findings.flatMap((finding) => {
    const bullet = finding.matchedBulletId ? state.bullets.get(finding.matchedBulletId) : undefined;
    return finding.kind === "near_duplicate" && bullet
      ? [{ id: bullet.externalId, content: bullet.content, similarity: Math.round((finding.similarity ?? 0) * 1000) / 1000 }]
      : [];
  });
  const outcome = await proposeDelta(
    caller.db,
    caller.who,
    {
      playbookId: playbook.id,
      operations: operations.map((operation) => ({ operation, rationale: args.rationale })),
      rationale: args.rationale,
      confidence: null,
      evidence: { traceIds: args.traceId ? [args.traceId] : [], runIds: [], links: [], notes: "Proposed by a coding agent through MCP." },
      baseVersion: snapshot.entry.version,
    },
    { origin: "agent" },
  );
  return {
    deltaId: outcome.deltaId,
    status: "pending",
    playbook: playbook.name,
    section: sectionName,
    newSection: !existing,
    nearDuplicates,
    message:
      `Proposed to "${playbook.name}" for review (delta ${outcome.deltaId}); a person approves or rejects it in ACE Studio's review queue.` +
      (nearDuplicates.length > 0
        ? ` It resembles ${nearDuplicates.map((d) => `[${d.id}]`).join(", ")}, which the reviewer will see beside it.`
        : ""),
  };
}
