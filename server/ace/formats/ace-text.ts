// ACE's text playbooks: `## SECTION` headers, then one bullet per line, either with counters
// (`[str-00001] helpful=5 harmful=0 :: content`, written by the ACE authors' code and the LangChain
// middleware) or without (`[shr-00001] content`, the AppWorld playbooks). Neutral counts are not
// part of either text format: they are read as 0 and never written.
// Content with real newlines continues on lines indented by two spaces.
import type { BulletCounters, BulletDoc, DocumentHints, PlaybookDocument, SectionDoc } from "../document";
import { highestIdNumber, isValidBulletId, slugForSection } from "../ids";
import { EXPECTED_COUNT, PlaybookParseError, quote } from "./errors";

export type AceTextFormat = "ace" | "ace-plain";

export interface TextSerializeOptions {
  /** Archived bullets cannot be marked in text, so they are left out unless asked for. */
  includeArchived?: boolean;
}

const HEADER_PREFIX = "## ";
const CONTINUATION_INDENT = "  ";
const COUNTERS_SEPARATOR = " :: ";
const COUNTERS = /^helpful=(\S*) harmful=(\S*) :: /;
const COUNTERS_SHAPE = `"helpful=<n> harmful=<n> :: <content>"`;

/** Which text format a text is in, or null when it holds neither headers nor bullets. */
export function detectAceTextFormat(text: string): AceTextFormat | null {
  const lines = text.split(/\r?\n/);
  if (lines.some((line) => /^\[[^\]\s]+\] helpful=\S* harmful=\S*/.test(line))) return "ace";
  if (lines.some((line) => line.startsWith(HEADER_PREFIX) || /^\[[^\]\s]+\]/.test(line))) return "ace-plain";
  return null;
}

export function parseAceText(text: string, format: AceTextFormat): PlaybookDocument {
  const { lines, hints } = splitLines(text, format);
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
// so a stray CR stays in its line, byte for byte.
function splitLines(text: string, format: AceTextFormat): { lines: string[]; hints: DocumentHints } {
  if (text === "") throw new PlaybookParseError({ format, problem: "the file is empty" });
  const lineEnding = lineEndingOf(text);
  const lines = text.split(lineEnding === "\r\n" ? /\r?\n/ : "\n");
  const trailingNewline = lines.length > 1 && lines.at(-1) === "";
  if (trailingNewline) lines.pop();
  let trailingBlankLines = 0;
  while (lines.at(-1) === "") {
    lines.pop();
    trailingBlankLines++;
  }
  if (lines.length === 0) throw new PlaybookParseError({ format, problem: "the file has only blank lines" });
  return { lines, hints: { lineEnding, trailingNewline, trailingBlankLines } };
}

class AceTextReader {
  private readonly sections: SectionDoc[] = [];
  private blankLines = 0;
  /** The bullet an indented line would continue: the one on the line just above. */
  private openBullet: BulletDoc | null = null;
  private readonly headerLines = new Map<string, number>();
  private readonly bulletLines = new Map<string, number>();

  constructor(private readonly format: AceTextFormat) {}

  read(line: string, lineNumber: number): void {
    if (line === "") {
      this.blankLines++;
      this.openBullet = null;
    } else if (/^\s/.test(line)) this.readContinuation(line, lineNumber);
    else if (line.startsWith("#")) this.readHeader(line, lineNumber);
    else if (line.startsWith("[")) this.readBullet(line, lineNumber);
    else this.fail(lineNumber, `expected a "## <section>" header or a "[id] …" bullet, found ${quote(line)}`);
  }

  finish(hints: DocumentHints): PlaybookDocument {
    for (const section of this.sections) {
      section.slug = slugForSection(section.name, section.bullets.map((bullet) => bullet.id));
    }
    return { sections: this.sections, lastIdNumber: highestIdNumber(this.bulletLines.keys()), hints };
  }

  private readHeader(line: string, lineNumber: number): void {
    if (!/^##( |$)/.test(line)) {
      this.fail(lineNumber, `expected a section header "## <name>", found ${quote(line)}`);
    }
    const name = line.slice(HEADER_PREFIX.length);
    if (name.trim() === "") this.fail(lineNumber, `a section header needs a name, found ${quote(line)}`);
    this.rejectRepeat(this.headerLines, name, lineNumber, `section "## ${name}"`);
    this.sections.push({ name, slug: "", bullets: [], blankLinesBefore: this.takeBlankLines() });
    this.openBullet = null;
  }

  private readBullet(line: string, lineNumber: number): void {
    const close = line.indexOf("]");
    if (close < 0) this.fail(lineNumber, `a bullet id needs a closing "]", found ${quote(line)}`);
    const id = line.slice(1, close);
    if (!isValidBulletId(id)) {
      const problem = id.trim() === "" ? "a bullet needs an id inside [ ]" : `bullet id ${quote(id)} contains whitespace`;
      this.fail(lineNumber, `${problem}, found ${quote(line)}`);
    }
    const rest = line.slice(close + 1);
    if (rest !== "" && !rest.startsWith(" ")) {
      this.fail(lineNumber, `expected a space after [${id}], found ${quote(rest)}`);
    }
    const section = this.sections.at(-1);
    if (!section) this.fail(lineNumber, `bullet [${id}] comes before any "## <section>" header`);
    this.rejectRepeat(this.bulletLines, id, lineNumber, `bullet id [${id}]`);
    const body = rest.slice(1);
    const { counters, content } = this.format === "ace" ? this.readCounters(body, id, lineNumber) : { counters: null, content: body };
    const bullet: BulletDoc = { id, content, counters, status: "active", blankLinesBefore: this.takeBlankLines() };
    section.bullets.push(bullet);
    this.openBullet = bullet;
  }

  private readCounters(body: string, id: string, lineNumber: number): { counters: BulletCounters; content: string } {
    const match = COUNTERS.exec(body);
    if (!match) this.fail(lineNumber, `expected ${COUNTERS_SHAPE} after [${id}], found ${quote(body)}`);
    const count = (name: string, raw: string | undefined): number => {
      const value = Number(raw);
      if (!raw || !/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
        this.fail(lineNumber, `${name} of [${id}]: ${EXPECTED_COUNT}, found ${quote(raw ?? "")}`);
      }
      return value;
    };
    return {
      counters: { helpful: count("helpful", match[1]), harmful: count("harmful", match[2]), neutral: 0 },
      content: body.slice(match[0].length),
    };
  }

  private readContinuation(line: string, lineNumber: number): void {
    if (!this.openBullet) {
      this.fail(lineNumber, `an indented line must continue the bullet on the line above it, found ${quote(line)}`);
    }
    if (!line.startsWith(CONTINUATION_INDENT)) {
      this.fail(lineNumber, `continuation lines are indented by two spaces, found ${quote(line)}`);
    }
    this.openBullet.content += `\n${line.slice(CONTINUATION_INDENT.length)}`;
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

export function serializeAceText(
  doc: PlaybookDocument,
  format: AceTextFormat,
  { includeArchived = false }: TextSerializeOptions = {},
): string {
  const lines: string[] = [];
  doc.sections.forEach((section, index) => {
    pushBlankLines(lines, section.blankLinesBefore ?? defaultSectionGap(index));
    lines.push(headerLine(section.name));
    for (const bullet of section.bullets) {
      if (bullet.status === "archived" && !includeArchived) continue;
      pushBlankLines(lines, bullet.blankLinesBefore ?? 0);
      lines.push(...bulletLines(bullet, format));
    }
  });
  pushBlankLines(lines, doc.hints.trailingBlankLines ?? 0);
  const lineEnding = doc.hints.lineEnding ?? "\n";
  return lines.join(lineEnding) + ((doc.hints.trailingNewline ?? true) ? lineEnding : "");
}

/** Without layout from a text source, sections are separated by one blank line. */
export function defaultSectionGap(index: number): number {
  return index === 0 ? 0 : 1;
}

function headerLine(name: string): string {
  if (name.trim() === "" || /[\r\n]/.test(name)) {
    throw new Error(`Cannot write section name ${quote(name)} as a text header: it is empty or spans lines.`);
  }
  return HEADER_PREFIX + name;
}

/** The text lines of one bullet, as the serializer writes them (compiled contexts count these). */
export function bulletLines(bullet: Pick<BulletDoc, "id" | "content" | "counters">, format: AceTextFormat): string[] {
  if (!isValidBulletId(bullet.id)) {
    throw new Error(`Cannot write bullet id ${quote(bullet.id)} in text: ids have no whitespace and no "]".`);
  }
  // A bullet without counters (from ace-plain) is written as never rated.
  const counters = bullet.counters ?? { helpful: 0, harmful: 0 };
  const prefix =
    format === "ace"
      ? `[${bullet.id}] helpful=${counters.helpful} harmful=${counters.harmful}${COUNTERS_SEPARATOR}`
      : `[${bullet.id}] `;
  const [first = "", ...rest] = bullet.content.split("\n");
  return [prefix + first, ...rest.map((line) => CONTINUATION_INDENT + line)];
}

function pushBlankLines(lines: string[], count: number): void {
  for (let i = 0; i < count; i++) lines.push("");
}
