// One door to every playbook format: recognise it, parse it into a PlaybookDocument, write it back.
import type { PlaybookDocument, PlaybookFormat } from "../document";
import { detectAceTextFormat, parseAceText, serializeAceText } from "./ace-text";
import { PlaybookParseError, isJsonObject, parseJsonText } from "./errors";
import { parseKayba, serializeKayba } from "./kayba";
import { STUDIO_JSON_FORMAT, parseStudioJson, serializeStudioJson } from "./studio-json";

export { PlaybookParseError } from "./errors";

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
    description: "The JSON skillbook of kayba's agentic-context-engine (ACE-open): skills by id, sections, next_id.",
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
   * kayba and ACE Studio JSON always carry archived bullets, with their status.
   */
  includeArchived?: boolean;
}

interface Codec {
  parse(text: string): PlaybookDocument;
  serialize(doc: PlaybookDocument, options: SerializeOptions): string;
}

const CODECS: Record<PlaybookFormat, Codec> = {
  ace: { parse: (text) => parseAceText(text, "ace"), serialize: (doc, options) => serializeAceText(doc, "ace", options) },
  "ace-plain": {
    parse: (text) => parseAceText(text, "ace-plain"),
    serialize: (doc, options) => serializeAceText(doc, "ace-plain", options),
  },
  kayba: { parse: parseKayba, serialize: (doc) => serializeKayba(doc) },
  json: { parse: parseStudioJson, serialize: (doc) => serializeStudioJson(doc) },
};

const BYTE_ORDER_MARK = "\uFEFF";
const TRIED = "tried ACE Studio JSON, kayba JSON, ACE text and ACE text without counters";

export function parsePlaybook(
  text: string,
  format: PlaybookFormat | "auto",
): { format: PlaybookFormat; document: PlaybookDocument } {
  const { body, byteOrderMark } = withoutByteOrderMark(text);
  const resolved = format === "auto" ? detectFormat(body) : format;
  const document = CODECS[resolved].parse(body);
  if (byteOrderMark) document.hints.byteOrderMark = true;
  return { format: resolved, document };
}

export function serializePlaybook(doc: PlaybookDocument, format: PlaybookFormat, options: SerializeOptions = {}): string {
  const text = CODECS[format].serialize(doc, options);
  // JSON readers, Python's json.load among them, reject a byte order mark, so only text gets it back.
  const isText = format === "ace" || format === "ace-plain";
  return isText && doc.hints.byteOrderMark ? BYTE_ORDER_MARK + text : text;
}

/** Only a text starting with "{" is taken for JSON: the text formats never start so. */
export function detectFormat(text: string): PlaybookFormat {
  const { body } = withoutByteOrderMark(text);
  if (body.trim() === "") throw new PlaybookParseError({ format: "auto", problem: "the file is empty" });
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
