// One door to every playbook format: recognise it, parse it into a PlaybookDocument, write it back.
import type { PlaybookDocument, PlaybookFormat } from "../document";
import { aceTextGuessNote, detectAceTextFormat, readAceText, serializeAceText } from "./ace-text";
import { PlaybookParseError, isJsonObject, parseJsonText } from "./errors";
import { readKayba, serializeKayba, type KaybaFlavour } from "./kayba";
import { STUDIO_JSON_FORMAT, parseStudioJson, serializeStudioJson } from "./studio-json";
import { plural } from "../text/format";
import { loneSurrogateAt, textProblemOf } from "../well-formed";

export { PlaybookExportError, PlaybookParseError } from "./errors";
export { KAYBA_FLAVOURS, type KaybaFlavour } from "./kayba";

export interface FormatInfo {
  label: string;
  extension: string;
  mimeType: string;
  description: string;
}

export const FORMAT_INFO: Record<PlaybookFormat, FormatInfo> = {
  ace: {
    label: "ACE text",
    extension: ".txt",
    mimeType: "text/plain",
    description:
      "`## SECTION` headers and `[id] helpful=H harmful=K :: content` bullets, " +
      "as the ACE authors' code and the LangChain ACE middleware write them.",
  },
  "ace-plain": {
    label: "ACE text without counters",
    extension: ".txt",
    mimeType: "text/plain",
    description: "`## SECTION` headers and `[id] content` bullets, as in the AppWorld playbooks.",
  },
  kayba: {
    label: "kayba skillbook",
    extension: ".json",
    mimeType: "application/json",
    description:
      "The JSON skillbook of kayba's agentic-context-engine (ACE-open): skills by id, sections, next_id. " +
      "kayba 0.9.3 and later drop helpful/harmful/neutral when they load it; kayba 0.6 and earlier read `bullets` only.",
  },
  json: {
    label: "ACE Studio JSON",
    extension: ".ace.json",
    mimeType: "application/json",
    description: "ACE Studio's lossless export: every bullet with its counters, status and provenance.",
  },
};

export interface SerializeOptions {
  /**
   * Text formats only: also write archived bullets (as ordinary ones, text cannot mark them).
   * kayba (except its `bullets` flavour) and ACE Studio JSON always carry archived bullets, with their status.
   */
  includeArchived?: boolean;
  /** kayba only: the flavour a kayba version reads; by default the one the playbook came in, else `skills-counters`. */
  kaybaFlavour?: KaybaFlavour;
}

interface Reading {
  document: PlaybookDocument;
  warnings: string[];
}

interface Codec {
  parse(text: string): Reading;
  serialize(doc: PlaybookDocument, options: SerializeOptions): string;
}

const CODECS: Record<PlaybookFormat, Codec> = {
  ace: { parse: (text) => readAceText(text, "ace"), serialize: (doc, options) => serializeAceText(doc, "ace", options) },
  "ace-plain": {
    parse: (text) => readAceText(text, "ace-plain"),
    serialize: (doc, options) => serializeAceText(doc, "ace-plain", options),
  },
  kayba: { parse: readKayba, serialize: (doc, options) => serializeKayba(doc, options.kaybaFlavour) },
  json: { parse: (text) => ({ document: parseStudioJson(text), warnings: [] }), serialize: (doc) => serializeStudioJson(doc) },
};

const BYTE_ORDER_MARK = "\uFEFF";
const TRIED = "tried ACE Studio JSON, kayba JSON, ACE text and ACE text without counters";

export interface ParsedPlaybook {
  format: PlaybookFormat;
  document: PlaybookDocument;
  /**
   * What was read differently from a plain reading, and how an export will differ from the file,
   * in sentences for the person importing (the file was still imported).
   */
  warnings: string[];
}

export function parsePlaybook(text: string, format: PlaybookFormat | "auto"): ParsedPlaybook {
  refuseUnstorableText(text, format);
  const { body, byteOrderMark } = withoutByteOrderMark(text);
  const resolved = format === "auto" ? detectFormat(body) : format;
  const { document, warnings } = CODECS[resolved].parse(body);
  if (byteOrderMark) document.hints.byteOrderMark = true;
  const note = format === "auto" && (resolved === "ace" || resolved === "ace-plain") ? aceTextGuessNote(body, resolved) : null;
  if (body.trim() === "") {
    warnings.unshift(`The file is empty: it was read as a playbook with no sections and no bullets, as the ACE implementations read it.`);
  }
  return { format: resolved, document, warnings: note ? [note, ...warnings] : warnings };
}

export function serializePlaybook(doc: PlaybookDocument, format: PlaybookFormat, options: SerializeOptions = {}): string {
  const text = CODECS[format].serialize(doc, options);
  // JSON readers, Python's json.load among them, reject a byte order mark, so only text gets it back.
  const isText = format === "ace" || format === "ace-plain";
  return isText && doc.hints.byteOrderMark ? BYTE_ORDER_MARK + text : text;
}

/**
 * What a format leaves out of the document, in sentences for the person exporting (the file is still
 * written): pins, which only ACE Studio JSON carries.
 */
export function exportNotes(doc: PlaybookDocument, format: PlaybookFormat): string[] {
  if (format === "json") return [];
  let pinned = 0;
  for (const section of doc.sections) for (const bullet of section.bullets) if (bullet.pinned && bullet.status === "active") pinned += 1;
  if (pinned === 0) return [];
  return [
    `${plural(pinned, "pinned bullet")} written as ${pinned === 1 ? "an ordinary bullet" : "ordinary bullets"}: ` +
      `${FORMAT_INFO[format].label} cannot mark pins. Export as ${FORMAT_INFO.json.label} to keep them.`,
  ];
}

/** A NUL or a lone surrogate anywhere in the file: no playbook can hold it, whatever the format. */
function refuseUnstorableText(text: string, format: PlaybookFormat | "auto"): void {
  const found = textProblemOf(text);
  if (!found) return;
  const at = found.kind === "nul" ? text.indexOf("\u0000") : loneSurrogateAt(text);
  const before = text.slice(0, at);
  const line = before.split("\n").length;
  throw new PlaybookParseError({
    format,
    line,
    column: at - before.lastIndexOf("\n"),
    problem:
      found.kind === "nul"
        ? "a NUL character (U+0000), which no playbook can hold. Remove it"
        : "a lone surrogate, half of a character that is not text on its own. Save the file as well-formed UTF-8",
  });
}

/**
 * Only a text starting with "{" is taken for JSON: the text formats never start so. An empty file
 * (or one of blank lines) is ACE text: the peers read it as an empty playbook.
 */
export function detectFormat(text: string): PlaybookFormat {
  const { body } = withoutByteOrderMark(text);
  if (body.trim() === "") return "ace";
  if (body.trimStart().startsWith("{")) return detectJsonFormat(body);
  const textFormat = detectAceTextFormat(body);
  if (textFormat) return textFormat;
  throw new PlaybookParseError({
    format: "auto",
    problem: `not a playbook in a known format (${TRIED}): found no "## <section>" header and no "[id] …" bullet line`,
  });
}

function withoutByteOrderMark(text: string): { body: string; byteOrderMark: boolean } {
  const byteOrderMark = text.startsWith(BYTE_ORDER_MARK);
  return { body: byteOrderMark ? text.slice(BYTE_ORDER_MARK.length) : text, byteOrderMark };
}

function detectJsonFormat(text: string): PlaybookFormat {
  const root = parseJsonText(text, "auto");
  if (isJsonObject(root) && root.format === STUDIO_JSON_FORMAT) return "json";
  if (isJsonObject(root) && (root.skills !== undefined || root.bullets !== undefined)) return "kayba";
  throw new PlaybookParseError({
    format: "auto",
    path: "$",
    problem: `not a playbook in a known format (${TRIED}): JSON without "format": "${STUDIO_JSON_FORMAT}", "skills" or "bullets"`,
  });
}
