// ACE Studio's own JSON export: every field of the document, archived bullets and provenance
// included, so a playbook moves between Studio instances without loss. Each object's keys are
// written in the order of its schema below, so our own files round-trip byte for byte.
import { z } from "zod";
import { BULLET_STATUSES, type BulletDoc, type DocumentHints, type PlaybookDocument, type SectionDoc } from "../document";
import { MAX_PINNED_BULLETS } from "../delta/types";
import { highestIdNumber } from "../ids";
import { EXPECTED_COUNT, PlaybookParseError, describeFound, jsonPath, parseJsonText, quote } from "./errors";

export const STUDIO_JSON_FORMAT = "ace-studio";
export const STUDIO_JSON_VERSION = 1;

// Every schema carries an "expected …" message; a failure reads "<message>, found <value>".
const string = (what = "a string") => z.string({ error: `expected ${what}` });
const count = z.number({ error: EXPECTED_COUNT }).int({ error: EXPECTED_COUNT }).min(0, { error: EXPECTED_COUNT });
const flag = z.boolean({ error: "expected true or false" });
const record = z.record(z.string(), z.unknown(), { error: "expected an object" });
const ORIGINS = ["import", "manual", "curator"] as const satisfies readonly NonNullable<BulletDoc["origin"]>[];

const countersSchema = z
  .strictObject({ helpful: count, harmful: count, neutral: count }, { error: "expected {helpful, harmful, neutral} or null" })
  .nullable();

const bulletSchema = z.strictObject(
  {
    // Any id another format can hold (kayba's may have spaces or "]"): this format is the lossless one.
    id: string("a bullet id").min(1, { error: "expected a bullet id" }),
    content: string(),
    counters: countersSchema,
    status: z.enum(BULLET_STATUSES, { error: `expected "active" or "archived"` }),
    justification: string().optional(),
    evidence: string().optional(),
    archivedReason: string().optional(),
    mergedInto: string().optional(),
    pinned: flag.optional(),
    createdAt: string("an ISO timestamp").optional(),
    updatedAt: string("an ISO timestamp").optional(),
    origin: z.enum(ORIGINS, { error: `expected "import", "manual" or "curator"` }).optional(),
    sourceTraceId: string().optional(),
    sourceRunId: string().optional(),
    blankLinesBefore: count.optional(),
    extra: record.optional(),
  },
  { error: "expected a bullet object" },
);

const sectionSchema = z.strictObject(
  {
    // "" is the unnamed first section of a text whose bullets come before any header, or kayba's "".
    name: string("a section name"),
    slug: string("an id prefix"),
    blankLinesBefore: count.optional(),
    bullets: z.array(bulletSchema, { error: "expected a list of bullets" }),
  },
  { error: "expected a section object" },
);

const hintsSchema = z.strictObject(
  {
    trailingNewline: flag.optional(),
    trailingBlankLines: count.optional(),
    lineEnding: z.enum(["\n", "\r\n"], { error: `expected "\\n" or "\\r\\n"` }).optional(),
    byteOrderMark: flag.optional(),
    trimmedEnd: flag.optional(),
    kaybaExtra: record.optional(),
    kaybaExtraText: z.record(z.string(), string("JSON text"), { error: "expected an object" }).optional(),
    kaybaSkillOrder: z.array(string(), { error: "expected a list of ids" }).optional(),
    kaybaCounters: flag.optional(),
    kaybaCollection: z.enum(["skills", "bullets"], { error: `expected "skills" or "bullets"` }).optional(),
    kaybaKeyOrder: z.array(string(), { error: "expected a list of keys" }).optional(),
    kaybaNextId: count.optional(),
  },
  { error: "expected an object" },
);

const playbookSchema = z.strictObject(
  { name: string().optional(), description: string().optional(), agentLabel: string().optional(), settings: record.optional() },
  { error: "expected an object" },
);

const fileSchema = z.strictObject(
  {
    format: z.literal(STUDIO_JSON_FORMAT, { error: `expected "${STUDIO_JSON_FORMAT}"` }),
    formatVersion: z.literal(STUDIO_JSON_VERSION, { error: `expected ${STUDIO_JSON_VERSION}` }),
    playbook: playbookSchema,
    lastIdNumber: count.optional(),
    hints: hintsSchema,
    sections: z.array(sectionSchema, { error: "expected a list of sections" }),
  },
  { error: "expected an ACE Studio JSON object" },
);

// Compile-time guard: a field added to the document model must be added to a schema here, or this
// lossless format would silently drop it.
type Uncovered<Model, Schema extends z.ZodType> = Exclude<keyof Model, keyof z.output<Schema>>;
type AllCovered = [
  | Uncovered<BulletDoc, typeof bulletSchema>
  | Uncovered<SectionDoc, typeof sectionSchema>
  | Uncovered<DocumentHints, typeof hintsSchema>
  | Exclude<keyof PlaybookDocument, keyof z.output<typeof fileSchema> | keyof z.output<typeof playbookSchema>>,
] extends [never]
  ? true
  : false;
const allCovered: AllCovered = true;
void allCovered;

export function parseStudioJson(text: string): PlaybookDocument {
  const raw = parseJsonText(text, "json");
  const result = fileSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    if (!issue) fail("$", "is not ACE Studio JSON");
    fail(jsonPath(issue.path), problemOf(issue, raw));
  }
  const { playbook, lastIdNumber, hints, sections } = result.data;
  rejectRepeats(sections);
  rejectPins(sections);
  const doc: PlaybookDocument = { ...playbook, sections, hints };
  if (lastIdNumber !== undefined) doc.lastIdNumber = lastIdNumber;
  return doc;
}

function problemOf(issue: z.core.$ZodIssue, root: unknown): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => quote(key)).join(", ")}`;
  }
  return `${issue.message}, found ${describeFound(valueAt(root, issue.path))}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null || typeof key === "symbol") return undefined;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value;
}

// Bullet ids identify bullets across the playbook, and section names are what people see: both unique.
function rejectRepeats(sections: readonly SectionDoc[]): void {
  const sectionAt = new Map<string, string>();
  const bulletAt = new Map<string, string>();
  sections.forEach((section, s) => {
    const path = jsonPath(["sections", s, "name"]);
    const earlier = sectionAt.get(section.name);
    if (earlier) fail(path, `section ${quote(section.name)} is already named at ${earlier}`);
    sectionAt.set(section.name, path);
    section.bullets.forEach((bullet, b) => {
      const idPath = jsonPath(["sections", s, "bullets", b, "id"]);
      const first = bulletAt.get(bullet.id);
      if (first) fail(idPath, `bullet id ${quote(bullet.id)} is already used at ${first}`);
      bulletAt.set(bullet.id, idPath);
    });
  });
}

// Pins are held to the engine's rules: only active bullets, at most MAX_PINNED_BULLETS.
function rejectPins(sections: readonly SectionDoc[]): void {
  let pinned = 0;
  sections.forEach((section, s) => {
    section.bullets.forEach((bullet, b) => {
      if (!bullet.pinned) return;
      const path = jsonPath(["sections", s, "bullets", b, "pinned"]);
      if (bullet.status === "archived") fail(path, 'an archived bullet cannot be pinned; remove "pinned" or make the bullet active');
      pinned += 1;
      if (pinned > MAX_PINNED_BULLETS) {
        fail(path, `more than ${MAX_PINNED_BULLETS} bullets are pinned, the most a playbook may have; unpin some in the file`);
      }
    });
  });
}

function fail(path: string, problem: string): never {
  throw new PlaybookParseError({ format: "json", path, problem });
}

// ---------------------------------------------------------------------------------------------

/** Pretty-printed with 2 spaces and a final newline; archived bullets included. */
export function serializeStudioJson(doc: PlaybookDocument): string {
  const lastIdNumber = doc.lastIdNumber ?? highestIdNumber(doc.sections.flatMap((s) => s.bullets.map((b) => b.id)));
  const file = inSchemaOrder(fileSchema, {
    format: STUDIO_JSON_FORMAT,
    formatVersion: STUDIO_JSON_VERSION,
    playbook: inSchemaOrder(playbookSchema, doc),
    lastIdNumber,
    hints: inSchemaOrder(hintsSchema, doc.hints),
    sections: doc.sections.map((section) =>
      inSchemaOrder(sectionSchema, section, {
        bullets: section.bullets.map((bullet) =>
          inSchemaOrder(bulletSchema, bullet, { counters: bullet.counters && inSchemaOrder(countersSchema.unwrap(), bullet.counters) }),
        ),
      }),
    ),
  });
  return `${JSON.stringify(file, null, 2)}\n`;
}

const KEYS_OF = new WeakMap<z.ZodObject, readonly string[]>();

/**
 * The schema's keys, in its order, taken from a value's own keys or, first, from `replaced`; keys it
 * does not know are left out, and so are keys neither has (JSON.stringify would leave them out too:
 * set to undefined, 10,000 bullets' objects took longer to make and to print).
 */
function inSchemaOrder(schema: z.ZodObject, value: object, replaced: Record<string, unknown> = {}): Record<string, unknown> {
  let keys = KEYS_OF.get(schema);
  if (!keys) KEYS_OF.set(schema, (keys = Object.keys(schema.shape)));
  const ordered: Record<string, unknown> = {};
  for (const key of keys) {
    if (Object.hasOwn(replaced, key)) ordered[key] = replaced[key];
    else if (Object.hasOwn(value, key)) ordered[key] = (value as Record<string, unknown>)[key];
  }
  return ordered;
}
