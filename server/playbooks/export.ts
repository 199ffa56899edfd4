// Exporting a playbook: its stored rows as a PlaybookDocument, written in its own format or another.
import type { z } from "zod";
import type { PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { FORMAT_INFO, PlaybookExportError, serializePlaybook } from "@/server/ace/formats";
import type { Db } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import { requirePlaybook } from "./manage";
import { documentFromRows, fromDbFormat } from "./mapping";
import * as repo from "./repository";
import type { exportPlaybookInput, ExportResult } from "./schemas";

export async function loadDocument(db: Db, playbookId: string): Promise<PlaybookDocument> {
  const playbook = await requirePlaybook(db, playbookId);
  const [sections, bullets] = await Promise.all([repo.listSections(db, playbookId), repo.listBulletsForExport(db, playbookId)]);
  return documentFromRows(playbook, sections, bullets);
}

function fileNameFor(name: string, format: PlaybookFormat): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "playbook";
  return `${base}${FORMAT_INFO[format].extension}`;
}

export async function exportPlaybook(db: Db, input: z.output<typeof exportPlaybookInput>): Promise<ExportResult> {
  const playbook = await requirePlaybook(db, input.playbookId);
  const format = input.format ?? fromDbFormat(playbook.sourceFormat);
  const document = await loadDocument(db, input.playbookId);
  return {
    fileName: fileNameFor(playbook.name, format),
    format,
    mimeType: FORMAT_INFO[format].mimeType,
    content: serialize(document, format, { includeArchived: input.includeArchived || format === "json", kaybaFlavour: input.kaybaFlavour }),
  };
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
