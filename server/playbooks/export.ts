// Exporting a playbook: its stored rows as a PlaybookDocument, written in its own format or another.
import type { z } from "zod";
import type { PlaybookDocument, PlaybookFormat } from "@/server/ace/document";
import { FORMAT_INFO, serializePlaybook } from "@/server/ace/formats";
import type { Db } from "@/server/db/client";
import { requirePlaybook } from "./manage";
import { documentFromRows, fromDbFormat } from "./mapping";
import * as repo from "./repository";
import type { exportPlaybookInput, ExportResult } from "./schemas";

export async function loadDocument(db: Db, playbookId: string): Promise<PlaybookDocument> {
  const playbook = await requirePlaybook(db, playbookId);
  const [sections, bullets] = await Promise.all([
    repo.listSections(db, playbookId),
    repo.listBulletsForExport(db, playbookId),
  ]);
  return documentFromRows(playbook, sections, bullets);
}

function fileNameFor(name: string, format: PlaybookFormat): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "playbook";
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
    content: serializePlaybook(document, format, { includeArchived: input.includeArchived || format === "json" }),
  };
}
