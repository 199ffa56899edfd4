// ACE's text playbooks: `## SECTION` headers, then one bullet per line, either with counters
// (`[str-00001] helpful=5 harmful=0 :: content`, written by the ACE authors' code and the LangChain
// middleware) or without (`[shr-00001] content`, the AppWorld playbooks). Neutral counts are not
// part of either text format: they are read as 0 and never written.
//
// A line is read as the peers' own parsers read it (parse_playbook_line of ace-agent/ace and of
// ace-appworld, on the stripped line): a line that parses as a bullet is a bullet, indented or not,
// however its counters are spaced; a stripped line starting with "##" is a header. Any other line
// continues the bullet above it: the ACE authors' curator writes multi-line content that way (their
// parsers skip those lines). ACE Studio writes content lines indented by two spaces, and a line the
// peers would take for a bullet or a header gets one backslash after the indent, so no parser
// mistakes it; bullets before the first header form an unnamed first section, written without one.
import type { BulletCounters, BulletDoc, DocumentHints, PlaybookDocument, SectionDoc } from "../document";
import { highestIdNumber, slugForSection } from "../ids";
import { EXPECTED_COUNT, PlaybookExportError, PlaybookParseError, listInWords, quote } from "./errors";
import { plural } from "../text/format";

export type AceTextFormat = "ace" | "ace-plain";

export interface TextSerializeOptions {
  /** Archived bullets cannot be marked in text, so they are left out unless asked for. */
  includeArchived?: boolean;
}

const HEADER_PREFIX = "## ";
const CONTINUATION_INDENT = "  ";
const COUNTERS_SEPARATOR = " :: ";
// The ACE authors' parse_playbook_line (also AppWorld's first pattern), on a line without its indent.
const PEER_COUNTERS_LINE = /^\[([^\]]+)\]\s*helpful=(\d+)\s*harmful=(\d+)\s*::\s*([\s\S]*)$/;
// AppWorld's fallback pattern: a line starting with [id] is a bullet without counters.
const PEER_PLAIN_LINE = /^\[([^\]]+)\]\s*([\s\S]*)$/;
// Exactly how ACE Studio writes a bullet; other spellings are read, and written back in this form.
const CANONICAL_COUNTERS = /^\[([^\]]+)\] helpful=(\d+) harmful=(\d+) :: /;
const CANONICAL_PLAIN = /^\[([^\]]+)\](?: |$)/;
// A bullet with counters that do not parse: refused with the reason (the peers would skip the bullet).
const COUNTERS_ATTEMPT = /^\[([^\]]+)\]\s*helpful=/;
const LOOSE_COUNTERS = /^helpful=(\S*)\s+harmful=(\S*?)\s*::/;
const COUNTERS_SHAPE = `"helpful=<n> harmful=<n> :: <content>"`;
// A content line the peers would read as a bullet or a header once stripped: written with one more
// backslash after the indent. Reading removes one from a line that has at least one.
const NEEDS_ESCAPE = /^\\*\s*(?:##|\[[^\]]+\])/;
const ESCAPED = /^\\+\s*(?:##|\[[^\]]+\])/;

/** Which text format a text is in, or null when it holds neither headers nor bullets. */
export function detectAceTextFormat(text: string): AceTextFormat | null {
  const { counters, plain, headers } = lineKinds(text);
  if (counters > 0) return "ace";
  return plain > 0 || headers > 0 ? "ace-plain" : null;
}

/** When the guess was close: a sentence saying what else the file could have been read as. */
export function aceTextGuessNote(text: string, format: AceTextFormat): string | null {
  const { counters, plain } = lineKinds(text);
  if (format !== "ace" || plain === 0) return null;
  return (
    `Read as ACE text with counters: ${plural(counters, "line")} ${counters === 1 ? "is a bullet" : "are bullets"} with counters, ` +
    `${plural(plain, "line")} ${plain === 1 ? "starts" : "start"} like a bullet without them ("[id] …"). ` +
    `If the file is ACE text without counters, import it with the format "ace-plain".`
  );
}

function lineKinds(text: string): { counters: number; plain: number; headers: number } {
  let counters = 0;
  let plain = 0;
  let headers = 0;
  for (const line of text.split(/\r?\n/)) {
    const stripped = line.trim();
    if (stripped.startsWith("##")) headers++;
    else if (COUNTERS_ATTEMPT.test(stripped)) counters++;
    else if (PEER_PLAIN_LINE.test(stripped)) plain++;
  }
  return { counters, plain, headers };
}

export interface AceTextReading {
  document: PlaybookDocument;
  /** Sentences on lines read differently from ACE Studio's own layout, and how they are written back. */
  warnings: string[];
}

export function parseAceText(text: string, format: AceTextFormat): PlaybookDocument {
  return readAceText(text, format).document;
}

export function readAceText(text: string, format: AceTextFormat): AceTextReading {
  const { lines, hints } = splitLines(text);
  const reader = new AceTextReader(format);
  lines.forEach((line, index) => reader.read(line, index + 1));
  return reader.finish(hints);
}

/** The line ending a file uses: the one of its first line break. */
export function lineEndingOf(text: string): "\n" | "\r\n" {
  const firstBreak = text.indexOf("\n");
  return firstBreak > 0 && text[firstBreak - 1] === "\r" ? "\r\n" : "\n";
}

// A CRLF file is split on CRLF or LF (a stray LF is normalised on export); an LF file only on LF,
// so a stray CR stays in its line, byte for byte. An empty file is an empty playbook, as the peers
// read it (the AppWorld repository publishes one).
function splitLines(text: string): { lines: string[]; hints: DocumentHints } {
  const lineEnding = lineEndingOf(text);
  if (text === "") return { lines: [], hints: { lineEnding, trailingNewline: false, trailingBlankLines: 0 } };
  const lines = text.split(lineEnding === "\r\n" ? /\r?\n/ : "\n");
  const trailingNewline = lines.length > 1 && lines.at(-1) === "";
  if (trailingNewline) lines.pop();
  let trailingBlankLines = 0;
  while (lines.at(-1) === "") {
    lines.pop();
    trailingBlankLines++;
  }
  return { lines, hints: { lineEnding, trailingNewline, trailingBlankLines } };
}

interface ReadBullet {
  id: string;
  content: string;
  counters: BulletCounters | null;
  /** Written as ACE Studio writes it: no indent, single spaces. */
  canonical: boolean;
  indented: boolean;
  /** The stripped "[id] helpful=0 harmful=0 ::" that ends a file the ACE authors' code wrote. */
  bareSeparator: boolean;
}

interface OpenBullet {
  bullet: BulletDoc;
  /** The lines after the bullet's own, with blank lines between them, until the next bullet or header. */
  block: string[];
  blockLines: number[];
}

class AceTextReader {
  private readonly sections: SectionDoc[] = [];
  private blankLines = 0;
  private open: OpenBullet | null = null;
  private readonly headerLines = new Map<string, number>();
  private readonly bulletLines = new Map<string, number>();
  private lastLineBareSeparator = false;
  // Line numbers for the warnings, by what was read differently.
  private readonly rawContinuation: number[] = [];
  private readonly rawContinued = new Set<string>();
  private readonly bulletLikeContinuation: number[] = [];
  private readonly leadingBullets: number[] = [];
  private readonly indentedBullets: number[] = [];
  private readonly respacedBullets: number[] = [];
  private readonly bareSeparatorLines: number[] = [];
  private readonly respacedHeaders: number[] = [];
  private readonly spaceOnlyLines: number[] = [];

  constructor(private readonly format: AceTextFormat) {}

  read(line: string, lineNumber: number): void {
    this.lastLineBareSeparator = false;
    if (line === "") {
      this.blankLines++;
      return;
    }
    const stripped = line.trim();
    if (stripped === "") {
      if (this.open) this.continueBullet(line, lineNumber);
      else {
        this.blankLines++;
        this.spaceOnlyLines.push(lineNumber);
      }
      return;
    }
    if (stripped.startsWith("##")) {
      this.readHeader(line, stripped, lineNumber);
      return;
    }
    const bullet = this.format === "ace" ? this.matchCounters(line, lineNumber) : this.matchPlain(line);
    if (bullet) {
      this.addBullet(bullet, lineNumber);
      return;
    }
    if (this.open) {
      if (this.format === "ace" && PEER_PLAIN_LINE.test(stripped)) this.bulletLikeContinuation.push(lineNumber);
      this.continueBullet(line, lineNumber);
      return;
    }
    if (this.format === "ace" && PEER_PLAIN_LINE.test(stripped)) {
      const id = PEER_PLAIN_LINE.exec(stripped)?.[1] ?? "";
      this.fail(lineNumber, `expected ${COUNTERS_SHAPE} after [${id}], found ${quote(stripped.slice(id.length + 2).trimStart())}`);
    }
    const where = this.sections.length === 0 ? "before it" : "above it in its section";
    this.fail(
      lineNumber,
      `expected a "## <section>" header or a "[id] …" bullet, found ${quote(line)} (a line that is neither continues the bullet ${where}, and there is none)`,
    );
  }

  finish(hints: DocumentHints): AceTextReading {
    this.closeBullet();
    for (const section of this.sections) {
      section.slug = slugForSection(
        section.name,
        section.bullets.map((bullet) => bullet.id),
      );
    }
    // "[id] helpful=0 harmful=0 ::" ending a file without a final newline is what Python's strip()
    // leaves of an empty last bullet: kept as such. Anywhere else it is only spaced differently.
    if (this.lastLineBareSeparator && hints.trailingNewline === false) {
      hints.trimmedEnd = true;
      this.bareSeparatorLines.pop();
    }
    this.respacedBullets.push(...this.bareSeparatorLines);
    this.respacedBullets.sort((a, b) => a - b);
    return {
      document: { sections: this.sections, lastIdNumber: highestIdNumber(this.bulletLines.keys()), hints },
      warnings: this.warnings(),
    };
  }

  private warnings(): string[] {
    const warnings: string[] = [];
    const shape = this.format === "ace" ? `"[id] helpful=H harmful=K :: content"` : `"[id] content"`;
    if (this.rawContinuation.length > 0) {
      const ids = listInWords([...this.rawContinued].map((id) => `[${id}]`));
      warnings.push(
        `${linesInWords(this.rawContinuation)}: read as more lines of the bullet above them (${ids}). The ACE authors' curator writes ` +
          `multi-line content this way and their parsers read only a bullet's first line; ACE Studio keeps these lines in the content, ` +
          `and they are written back indented by two spaces.`,
      );
    }
    if (this.bulletLikeContinuation.length > 0) {
      const one = this.bulletLikeContinuation.length === 1;
      warnings.push(
        `${linesInWords(this.bulletLikeContinuation)}: ${one ? "starts" : "start"} like a bullet but ${one ? "has" : "have"} no counters, ` +
          `so neither the ACE authors' parser nor ACE Studio reads ${one ? "it as a bullet; it was" : "them as bullets; they were"} kept as ` +
          `${one ? "a line" : "lines"} of the bullet above. ACE Studio writes such a line with a backslash after the indent, so no parser takes it for a bullet.`,
      );
    }
    if (this.leadingBullets.length > 0) {
      warnings.push(
        `${linesInWords(this.leadingBullets)}: bullets before the first "## " header were read into an unnamed first section ` +
          `(the ACE authors' code calls it "general"); it is written back without a header.`,
      );
    }
    if (this.indentedBullets.length > 0) {
      warnings.push(
        `${linesInWords(this.indentedBullets)}: indented bullet lines were read as bullets, as the ACE parsers read them ` +
          `(earlier versions of ACE Studio took them for more lines of the bullet above); they are written back without the indent.`,
      );
    }
    if (this.respacedBullets.length > 0) {
      warnings.push(
        `${linesInWords(this.respacedBullets)}: bullets spaced differently from ${shape} were read as the ACE parsers read them; ` +
          `they are written back as ${shape}.`,
      );
    }
    if (this.respacedHeaders.length > 0) {
      warnings.push(
        `${linesInWords(this.respacedHeaders)}: section headers written differently from "## <name>" were read as the ACE parsers ` +
          `read them (the name without the "##" and the spaces around it); they are written back as "## <name>".`,
      );
    }
    if (this.spaceOnlyLines.length > 0) {
      warnings.push(
        `${linesInWords(this.spaceOnlyLines)}: lines of only spaces between bullets were read as blank lines and are written back empty.`,
      );
    }
    return warnings;
  }

  private readHeader(line: string, stripped: string, lineNumber: number): void {
    const canonical = line.startsWith(HEADER_PREFIX);
    const name = canonical ? line.slice(HEADER_PREFIX.length) : stripped.slice(2).trim();
    if (name.trim() === "") this.fail(lineNumber, `a section header needs a name, found ${quote(line)}`);
    if (!canonical) this.respacedHeaders.push(lineNumber);
    this.closeBullet();
    this.rejectRepeat(this.headerLines, name, lineNumber, `section "## ${name}"`);
    this.sections.push({ name, slug: "", bullets: [], blankLinesBefore: this.takeBlankLines() });
  }

  private matchCounters(line: string, lineNumber: number): ReadBullet | null {
    const canonical = CANONICAL_COUNTERS.exec(line);
    const unindented = line.trimStart();
    const peer = canonical ? null : PEER_COUNTERS_LINE.exec(unindented);
    const match = canonical ?? peer;
    if (!match) {
      const attempt = COUNTERS_ATTEMPT.exec(unindented);
      if (attempt) this.failCounters(attempt[1] ?? "", unindented.slice((attempt[1] ?? "").length + 2).trimStart(), lineNumber);
      return null;
    }
    const id = match[1] ?? "";
    const counters: BulletCounters = {
      helpful: this.count("helpful", id, match[2], lineNumber),
      harmful: this.count("harmful", id, match[3], lineNumber),
      neutral: 0,
    };
    const content = canonical ? line.slice(canonical[0].length) : (peer?.[4] ?? "");
    const bareSeparator = !canonical && unindented === line && /^\[[^\]]+\] helpful=\d+ harmful=\d+ ::$/.test(line);
    return { id, content, counters, canonical: canonical !== null, indented: unindented !== line, bareSeparator };
  }

  private matchPlain(line: string): ReadBullet | null {
    const canonical = CANONICAL_PLAIN.exec(line);
    const unindented = line.trimStart();
    if (canonical) {
      return {
        id: canonical[1] ?? "",
        content: line.slice(canonical[0].length),
        counters: null,
        canonical: true,
        indented: false,
        bareSeparator: false,
      };
    }
    const peer = PEER_PLAIN_LINE.exec(unindented);
    if (!peer) return null;
    return {
      id: peer[1] ?? "",
      content: peer[2] ?? "",
      counters: null,
      canonical: false,
      indented: unindented !== line,
      bareSeparator: false,
    };
  }

  /** Why a line that starts as a bullet with counters is not one, in the words of the old messages. */
  private failCounters(id: string, body: string, lineNumber: number): never {
    const loose = LOOSE_COUNTERS.exec(body);
    if (loose) {
      this.count("helpful", id, loose[1], lineNumber);
      this.count("harmful", id, loose[2], lineNumber);
    }
    return this.fail(lineNumber, `expected ${COUNTERS_SHAPE} after [${id}], found ${quote(body)}`);
  }

  private count(name: string, id: string, raw: string | undefined, lineNumber: number): number {
    const value = Number(raw);
    if (!raw || !/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
      this.fail(lineNumber, `${name} of [${id}]: ${EXPECTED_COUNT}, found ${quote(raw ?? "")}`);
    }
    return value;
  }

  private addBullet(read: ReadBullet, lineNumber: number): void {
    this.closeBullet();
    let section = this.sections.at(-1);
    if (!section) {
      section = { name: "", slug: "", bullets: [], blankLinesBefore: 0 };
      this.sections.push(section);
    }
    if (section.name === "" && this.sections.length === 1) this.leadingBullets.push(lineNumber);
    if (read.indented) this.indentedBullets.push(lineNumber);
    else if (!read.canonical && !read.bareSeparator) this.respacedBullets.push(lineNumber);
    this.rejectRepeat(this.bulletLines, read.id, lineNumber, `bullet id [${read.id}]`);
    const bullet: BulletDoc = {
      id: read.id,
      content: read.content,
      counters: read.counters,
      status: "active",
      blankLinesBefore: this.takeBlankLines(),
    };
    section.bullets.push(bullet);
    this.open = { bullet, block: [], blockLines: [] };
    this.lastLineBareSeparator = read.bareSeparator;
    if (read.bareSeparator) this.bareSeparatorLines.push(lineNumber);
  }

  private continueBullet(line: string, lineNumber: number): void {
    const open = this.open as OpenBullet;
    for (; this.blankLines > 0; this.blankLines--) open.block.push("");
    open.block.push(line);
    open.blockLines.push(lineNumber);
  }

  /**
   * Lines all indented by two spaces are ACE Studio's own continuation lines: the indent and one
   * escaping backslash come off. Otherwise the lines are content exactly as written.
   */
  private closeBullet(): void {
    const open = this.open;
    this.open = null;
    if (!open || open.block.length === 0) return;
    const indented = open.block.every((line) => line.startsWith(CONTINUATION_INDENT));
    const lines = indented ? open.block.map((line) => unescapeLine(line.slice(CONTINUATION_INDENT.length))) : open.block;
    if (!indented) {
      this.rawContinuation.push(...open.blockLines);
      this.rawContinued.add(open.bullet.id);
    }
    open.bullet.content += `\n${lines.join("\n")}`;
  }

  private takeBlankLines(): number {
    const count = this.blankLines;
    this.blankLines = 0;
    return count;
  }

  private rejectRepeat(seen: Map<string, number>, key: string, lineNumber: number, what: string): void {
    const first = seen.get(key);
    if (first !== undefined) this.fail(lineNumber, `${what} appears twice (lines ${first} and ${lineNumber})`);
    seen.set(key, lineNumber);
  }

  private fail(line: number, problem: string): never {
    throw new PlaybookParseError({ format: this.format, line, problem });
  }
}

/** "Line 3", "Lines 3, 5 and 9", "Lines 3-7": the lines a warning is about. */
function linesInWords(numbers: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < numbers.length; i++) {
    const start = numbers[i] as number;
    let end = start;
    while (numbers[i + 1] === end + 1) end = numbers[++i] as number;
    ranges.push(end > start ? `${start}-${end}` : String(start));
  }
  const single = numbers.length === 1;
  return `${single ? "Line" : "Lines"} ${listInWords(ranges)}`;
}

function unescapeLine(line: string): string {
  return ESCAPED.test(line) ? line.slice(1) : line;
}

function escapeLine(line: string): string {
  return NEEDS_ESCAPE.test(line) ? `\\${line}` : line;
}

// ---------------------------------------------------------------------------------------------

export function serializeAceText(
  doc: PlaybookDocument,
  format: AceTextFormat,
  { includeArchived = false }: TextSerializeOptions = {},
): string {
  const written = (bullet: BulletDoc) => bullet.status === "active" || includeArchived;
  assertWritable(doc, format, written);
  const lines: string[] = [];
  doc.sections.forEach((section, index) => {
    if (!isHeaderless(section, index)) {
      pushBlankLines(lines, section.blankLinesBefore ?? defaultSectionGap(index));
      lines.push(HEADER_PREFIX + section.name);
    }
    for (const bullet of section.bullets) {
      if (!written(bullet)) continue;
      pushBlankLines(lines, bullet.blankLinesBefore ?? 0);
      lines.push(...bulletLines(bullet, format));
    }
  });
  pushBlankLines(lines, doc.hints.trailingBlankLines ?? 0);
  const lineEnding = doc.hints.lineEnding ?? "\n";
  const trailingNewline = doc.hints.trailingNewline ?? true;
  const text = lines.join(lineEnding) + (trailingNewline ? lineEnding : "");
  return doc.hints.trimmedEnd && !trailingNewline ? text.trimEnd() : text;
}

/** The first section may have no name: its bullets come before any header. */
function isHeaderless(section: SectionDoc, index: number): boolean {
  return index === 0 && section.name === "";
}

/** Without layout from a text source, sections are separated by one blank line. */
export function defaultSectionGap(index: number): number {
  return index === 0 ? 0 : 1;
}

/** An id the peers' parsers read back from `[id]`: not empty, no "]" and no line break. */
function isTextWritableId(id: string): boolean {
  return /^[^\]\r\n]+$/.test(id);
}

/** Every id and section name the text cannot hold, named in one message. */
function assertWritable(doc: PlaybookDocument, format: AceTextFormat, written: (bullet: BulletDoc) => boolean): void {
  const badIds = doc.sections.flatMap((section) =>
    section.bullets.filter((bullet) => written(bullet) && !isTextWritableId(bullet.id)).map((bullet) => bullet.id),
  );
  const badNames = doc.sections
    .filter((section, index) => !isHeaderless(section, index) && (section.name.trim() === "" || /[\r\n]/.test(section.name)))
    .map((section) => section.name);
  if (badIds.length === 0 && badNames.length === 0) return;
  const problems: string[] = [];
  if (badIds.length > 0) {
    problems.push(
      `bullet ${badIds.length === 1 ? "id" : "ids"} ${listInWords(badIds.map((id) => quote(id)))} cannot stand inside "[ ]" (empty, or with "]" or a line break)`,
    );
  }
  if (badNames.length > 0) {
    problems.push(
      `section ${badNames.length === 1 ? "name" : "names"} ${listInWords(badNames.map((name) => quote(name)))} cannot be a "## <name>" header ` +
        `(empty, or with a line break; only the first section may be unnamed)`,
    );
  }
  const label = format === "ace" ? "ACE text" : "ACE text without counters";
  throw new PlaybookExportError(
    format,
    `Cannot write this playbook as ${label}: ${problems.join("; ")}. Export it as kayba or ACE Studio JSON, which keep them.`,
  );
}

/**
 * The text lines of one bullet, as the serializer writes them (compiled contexts count these).
 * Never throws: a compiled context or a token count shows whatever id the playbook holds.
 */
export function bulletLines(bullet: Pick<BulletDoc, "id" | "content" | "counters">, format: AceTextFormat): string[] {
  // A bullet without counters (from ace-plain) is written as never rated.
  const counters = bullet.counters ?? { helpful: 0, harmful: 0 };
  const prefix =
    format === "ace" ? `[${bullet.id}] helpful=${counters.helpful} harmful=${counters.harmful}${COUNTERS_SEPARATOR}` : `[${bullet.id}] `;
  const [first = "", ...rest] = bullet.content.split("\n");
  return [prefix + first, ...rest.map((line) => CONTINUATION_INDENT + escapeLine(line))];
}

function pushBlankLines(lines: string[], count: number): void {
  for (let i = 0; i < count; i++) lines.push("");
}
