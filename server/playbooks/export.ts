// Exporting a playbook: its stored rows as a PlaybookDocument, written in its own format or another,
// or as instructions for coding agents (CLAUDE.md, AGENTS.md, a Cursor rule), which are export only.
import type { z } from "zod";
import type { PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { exportNotes, FORMAT_INFO, PlaybookExportError, serializePlaybook } from "@/server/ace/formats";
import { AGENT_FORMAT_INFO, isAgentFormat, type AgentFormat } from "@/server/ace/formats/agent-formats";
import { PinnedBudgetError } from "@/server/ace/context";
import { AgentBudgetError, contextSectionsOfDocument, writeAgentInstructions } from "@/server/ace/formats/agent-instructions";
import type { Db } from "@/server/db/client";
import { compareBullets, LayeredMap } from "@/server/ace/delta";
import type { BulletState } from "@/server/ace/history";
import { keepExtras, loadSnapshot } from "@/server/deltas/engine-state";
import type { EngineEntry, EntryExtras } from "@/server/deltas/state-cache";
import { currentVersion } from "@/server/deltas/repository";
import { AppError } from "@/server/errors/app-error";
import { readSettings, requirePlaybook } from "./manage";
import { documentFromRows, fromDbFormat } from "./mapping";
import * as bulletStates from "./repositories/bullet-states";
import * as repo from "./repository";
import type { exportPlaybookInput, ExportResult } from "./schemas";

type StoredPlaybookRow = Awaited<ReturnType<typeof requirePlaybook>>;

/**
 * The playbook's sections and bullets as a document, under the row its caller has read. The bullets'
 * states come from the delta engine's cache when it holds the row's version, and so do what files
 * carry beyond them once an export read it, except for the bullets changed since (a 10,000-bullet
 * playbook's contents are 2 MB, the rest 1 MB of JSON); when a write came in between, everything is
 * read in one statement instead.
 */
export async function loadDocument(db: Db, playbook: StoredPlaybookRow): Promise<PlaybookDocument> {
  const { entry } = await loadSnapshot(db, playbook.id);
  if (entry.version === playbook.version) {
    const [sections, extras] = await Promise.all([repo.listSections(db, playbook.id), currentExtras(db, playbook.id, entry)]);
    // Read between two reads of the same version, so no write came in between (every write bumps it).
    const after = await currentVersion(db, playbook.id);
    const bullets = after?.version === playbook.version && extras ? inReadingOrder(entry.state.bullets, extras.rows) : null;
    if (bullets && extras) {
      keepExtras(entry, extras);
      return documentFromRows(playbook, sections, bullets, (state) => extras.rows.get(state.externalId) as bulletStates.ExportBulletExtras);
    }
  }
  return loadDocumentFromRows(db, playbook);
}

const NONE_STALE: ReadonlySet<string> = new Set();

/** The entry's extras at its version: as kept when none is stale, the stale rows read again, or all read. */
async function currentExtras(db: Db, playbookId: string, entry: EngineEntry): Promise<EntryExtras | null> {
  const kept = entry.extras;
  if (kept?.stale.size === 0) return kept;
  if (!kept) {
    const read = await bulletStates.listBulletExtras(db, playbookId);
    return read && { rows: read.rows, stale: NONE_STALE, rowBytes: read.bytes / Math.max(1, read.rows.size) };
  }
  const read = await bulletStates.listBulletExtras(db, playbookId, [...kept.stale]);
  return read && { rows: LayeredMap.over(kept.rows, read.rows), stale: NONE_STALE, rowBytes: kept.rowBytes };
}

/** loadDocument reading every column of every bullet in one statement. */
export async function loadDocumentFromRows(db: Db, playbook: StoredPlaybookRow): Promise<PlaybookDocument> {
  const [sections, bullets] = await Promise.all([repo.listSections(db, playbook.id), bulletStates.listBulletsForExport(db, playbook.id)]);
  return documentFromRows(playbook, sections, bullets, (row) => row);
}

/** The states in reading order (compareBullets); null unless every one has its extras and no others are there. */
function inReadingOrder(
  states: ReadonlyMap<string, BulletState>,
  extras: ReadonlyMap<string, bulletStates.ExportBulletExtras>,
): BulletState[] | null {
  if (states.size !== extras.size) return null;
  const ordered = [...states.values()];
  for (const state of ordered) if (!extras.has(state.externalId)) return null;
  return ordered.sort(compareBullets);
}

function slugOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "playbook"
  );
}

function fileNameFor(name: string, format: PlaybookFormat): string {
  return `${slugOf(name)}${FORMAT_INFO[format].extension}`;
}

export async function exportPlaybook(db: Db, input: z.output<typeof exportPlaybookInput>): Promise<ExportResult> {
  const playbook = await requirePlaybook(db, input.playbookId);
  const format = input.format ?? fromDbFormat(playbook.sourceFormat);
  if (isAgentFormat(format)) return exportAgentInstructions(db, playbook, format, input.budget);
  const document = await loadDocument(db, playbook);
  return {
    fileName: fileNameFor(playbook.name, format),
    format,
    mimeType: FORMAT_INFO[format].mimeType,
    content: serialize(document, format, { includeArchived: input.includeArchived || format === "json", kaybaFlavour: input.kaybaFlavour }),
    notes: exportNotes(document, format),
  };
}

/** The bullets ranked and cut as the compiled context, in the file a coding agent reads from its repository. */
async function exportAgentInstructions(
  db: Db,
  playbook: StoredPlaybookRow,
  format: AgentFormat,
  budget: number | undefined,
): Promise<ExportResult> {
  const document = await loadDocument(db, playbook);
  const tokenBudget = budget ?? readSettings(playbook.settings).tokenBudget;
  try {
    const written = writeAgentInstructions(
      contextSectionsOfDocument(document),
      format,
      { playbook: playbook.name, version: playbook.version, exportedAt: new Date() },
      { tokenBudget },
    );
    const info = AGENT_FORMAT_INFO[format];
    return {
      fileName: format === "cursor-rules" ? `${slugOf(playbook.name)}${info.extension}` : info.place,
      format,
      mimeType: info.mimeType,
      content: written.text,
    };
  } catch (error) {
    if (error instanceof AgentBudgetError) throw new AppError("INVALID_INPUT", error.message, { cause: error });
    if (error instanceof PinnedBudgetError) {
      throw new AppError("CONFLICT", error.message, {
        details: { budget: error.budget, pinnedTokens: error.pinnedTokens, pinnedBullets: error.pinned },
        cause: error,
      });
    }
    throw error;
  }
}

/** A playbook the format cannot hold (ids or section names text cannot write) is the asker's to choose another format for. */
function serialize(document: PlaybookDocument, format: PlaybookFormat, options: Parameters<typeof serializePlaybook>[2]): string {
  try {
    return serializePlaybook(document, format, options);
  } catch (error) {
    if (error instanceof PlaybookExportError) throw new AppError("INVALID_INPUT", error.message, { cause: error });
    throw error;
  }
}
