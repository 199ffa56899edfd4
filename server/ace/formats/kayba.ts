// kayba / ACE-open JSON skillbooks: `skills` (kayba ≤ 0.6: `bullets`) keyed by id, `sections` mapping
// each section name to its ordered ids, and `next_id`. kayba writes them with Python's
// json.dump(indent=2, ensure_ascii=False). The file is read as a tree that keeps every key order and
// each number's spelling, and everything ACE Studio does not model is kept as JSON text, so an
// import-then-export in the file's own flavour is byte-identical (embeddings, ids like "42" too).
//
// The flavours, as each kayba version reads and writes them (checked against kayba's own code):
// - `skills`: kayba 0.9.3 and later. No helpful/harmful/neutral: kayba drops them on load.
// - `skills-counters`: kayba 0.8 to 0.9.2. Skills with helpful/harmful/neutral. Later versions read
//   these files too (and drop the counters).
// - `bullets`: kayba 0.6 and earlier read only `bullets`, and 0.5 refuses any field it does not know,
//   so this flavour writes only what 0.5 knows and leaves archived bullets out.
import type { BulletDoc, BulletStatus, DocumentHints, PlaybookDocument, SectionDoc } from "../document";
import { highestIdNumber, mostCommonIdPrefix } from "../ids";
import { lineEndingOf } from "./ace-text";
import {
  EXPECTED_COUNT,
  PlaybookExportError,
  PlaybookParseError,
  describeFound,
  isJsonObject,
  jsonPath,
  listInWords,
  parseJsonText,
  quote,
} from "./errors";
import {
  NOT_PLAIN,
  parseTree,
  plainObjectOf,
  plainOf,
  printCompact,
  printTree,
  repeatedKeys,
  treeOf,
  valueOf,
  type JsonNode,
} from "./json-tree";

export const KAYBA_FLAVOURS = ["skills", "skills-counters", "bullets"] as const;
export type KaybaFlavour = (typeof KAYBA_FLAVOURS)[number];

export const KAYBA_FLAVOUR_INFO: Record<KaybaFlavour, { label: string; description: string }> = {
  skills: {
    label: "kayba 0.9.3 and later",
    description: "`skills` without helpful/harmful/neutral: current kayba drops the counters when it loads a skillbook.",
  },
  "skills-counters": {
    label: "kayba 0.8 to 0.9.2",
    description: "`skills` with helpful/harmful/neutral. Later kayba versions read it too, without the counters.",
  },
  bullets: {
    label: "kayba 0.6 and earlier",
    description: "`bullets` with counters, only the fields kayba 0.5 knows; archived bullets are left out.",
  },
};

/** What a bullet from kayba keeps in `extra.kayba` for a byte-identical export. */
export interface KaybaBulletExtra {
  /** The skill object's keys in source order. */
  keyOrder: string[];
  /**
   * Keys ACE Studio does not model (embedding, sources, …) and modelled keys whose value it could not
   * read, each as compact JSON text: stored as text, their key order and number spelling survive.
   */
  raw: Record<string, string>;
  /** The same fields as plain values, as playbooks imported before `raw` existed store them. */
  fields?: Record<string, unknown>;
  /** created_at / updated_at exactly as written (Python writes microseconds). */
  createdAt?: string;
  updatedAt?: string;
  /** The source status; anything but "active" reads as archived. */
  status?: unknown;
}

const COUNTER_KEYS = ["helpful", "harmful", "neutral"] as const;
const TEXT_KEYS = ["justification", "evidence"] as const;
const TIMESTAMP_KEYS = [
  ["created_at", "createdAt"],
  ["updated_at", "updatedAt"],
] as const;

// The key order each flavour's Skill/Bullet dataclass writes (dataclasses.asdict).
const SKILL_KEYS: Record<KaybaFlavour, readonly string[]> = {
  skills: ["id", "section", "content", "justification", "evidence", "created_at", "updated_at", "embedding", "status", "sources"],
  "skills-counters": [
    "id",
    "section",
    "content",
    "justification",
    "evidence",
    "helpful",
    "harmful",
    "neutral",
    "created_at",
    "updated_at",
    "embedding",
    "status",
    "sources",
  ],
  bullets: ["id", "section", "content", "helpful", "harmful", "neutral", "created_at", "updated_at"],
};
// kayba's soft-deleted status.
const INACTIVE_STATUS = "invalid";
// Values kayba assumes when a key is absent, so an older file that left them out gets none added.
const IMPLIED_VALUES: Record<string, unknown> = { helpful: 0, harmful: 0, neutral: 0, status: "active" };

type KaybaCollection = "skills" | "bullets";

export interface KaybaReading {
  document: PlaybookDocument;
  /** Sentences on what was read differently from a plain reading (repeated listings, …). */
  warnings: string[];
}

/**
 * A key an object repeats is read as kayba reads it (Python's json module: the last value, in the
 * first place) and said: the file was probably edited by hand, and an export writes the key once.
 */
function repeatedKeyWarnings(tree: JsonNode): string[] {
  const repeated = repeatedKeys(tree);
  if (repeated.length === 0) return [];
  const named = repeated.slice(0, 5).map(({ path, key }) => `${JSON.stringify(key)} in ${jsonPath(path)}`);
  const more = repeated.length > 5 ? ` and ${repeated.length - 5} more` : "";
  return [`Repeated keys: ${named.join(", ")}${more}. Each keeps its last value, as kayba reads the file; an export writes each key once.`];
}

export function parseKayba(text: string): PlaybookDocument {
  return readKayba(text).document;
}

export function readKayba(text: string): KaybaReading {
  const rootValue = parseJsonText(text, "kayba");
  if (!isJsonObject(rootValue)) fail([], `expected a JSON object, found ${describeFound(rootValue)}`);
  const tree = parseTree(text);
  const root = new Map(tree.kind === "object" ? tree.entries : []);
  const collection = collectionOf(rootValue);
  const skills = readSkills(collection, root.get(collection) as JsonNode);
  const warnings: string[] = repeatedKeyWarnings(tree);
  const sections = readSections(collection, root.get("sections"), skills, warnings);
  const nextId = readNextId(rootValue.next_id);
  const readingOrder = sections.flatMap((section) => section.bullets.map((bullet) => bullet.id));
  const fileOrder = [...skills.keys()];
  const hints: DocumentHints = {
    kaybaCollection: collection,
    kaybaKeyOrder: [...root.keys()],
    kaybaExtraText: Object.fromEntries(
      [...root]
        .filter(([key]) => key !== collection && key !== "sections" && key !== "next_id")
        .map(([key, node]) => [key, printCompact(node)]),
    ),
    kaybaCounters: skills.size === 0 || [...skills.values()].some((skill) => skill.bullet.counters !== null),
    trailingNewline: text.endsWith("\n"),
    lineEnding: lineEndingOf(text),
  };
  if (fileOrder.join("\u0000") !== readingOrder.join("\u0000")) hints.kaybaSkillOrder = fileOrder;
  if (nextId !== undefined) hints.kaybaNextId = nextId;
  return {
    document: { sections, lastIdNumber: Math.max(nextId ?? 0, highestIdNumber(skills.keys())), hints },
    warnings,
  };
}

function collectionOf(root: Record<string, unknown>): KaybaCollection {
  if (root.skills !== undefined) return "skills";
  if (root.bullets !== undefined) return "bullets";
  return fail([], `expected a "skills" object (older files: "bullets") mapping ids to skills, found neither`);
}

interface ReadSkill {
  section: string;
  bullet: BulletDoc;
}

function readSkills(collection: KaybaCollection, node: JsonNode): Map<string, ReadSkill> {
  if (node.kind !== "object") fail([collection], `expected an object mapping ids to skills, found ${describeFound(valueOf(node))}`);
  // A repeated key keeps its first place and its last value, as Python's json.load reads it.
  return new Map([...new Map(node.entries)].map(([key, value]) => [key, readSkill([collection, key], key, value)]));
}

function readSkill(path: string[], key: string, node: JsonNode): ReadSkill {
  const raw = valueOf(node);
  if (node.kind !== "object" || !isJsonObject(raw)) fail(path, `expected a skill object, found ${describeFound(raw)}`);
  const at = (field: string) => [...path, field];
  if (raw.id !== key) fail(at("id"), `expected ${quote(key)}, the key the skill is stored under, found ${describeFound(raw.id)}`);
  if (typeof raw.section !== "string") fail(at("section"), `expected a section name, found ${describeFound(raw.section)}`);
  if (typeof raw.content !== "string") fail(at("content"), `expected a string, found ${describeFound(raw.content)}`);
  // kayba 0.9.3 and later write no counters: such a skill has none, as a text without counters.
  const hasCounters = COUNTER_KEYS.some((name) => raw[name] !== undefined);
  const counters = hasCounters ? { helpful: 0, harmful: 0, neutral: 0 } : null;
  if (counters) for (const name of COUNTER_KEYS) counters[name] = readCount(at(name), raw[name]);
  const status: BulletStatus = raw.status === undefined || raw.status === "active" ? "active" : "archived";
  const bullet: BulletDoc = { id: key, content: raw.content, counters, status };
  readOptionalFields(new Map(node.entries), raw, bullet);
  return { section: raw.section, bullet };
}

/** Texts and timestamps the document can hold go to the bullet; the rest, as JSON text, to `extra.kayba`. */
function readOptionalFields(nodes: Map<string, JsonNode>, raw: Record<string, unknown>, bullet: BulletDoc): void {
  const kayba: KaybaBulletExtra = { keyOrder: [...nodes.keys()], raw: {} };
  if (raw.status !== undefined) kayba.status = raw.status;
  const taken = new Set<string>(["id", "section", "content", "status", ...COUNTER_KEYS]);
  for (const key of TEXT_KEYS) {
    const value = raw[key];
    if (typeof value !== "string") continue;
    bullet[key] = value;
    taken.add(key);
  }
  for (const [key, field] of TIMESTAMP_KEYS) {
    const source = raw[key];
    const instant = typeof source === "string" ? instantOf(source) : null;
    if (typeof source !== "string" || instant === null) continue;
    bullet[field] = new Date(instant).toISOString();
    kayba[field] = source;
    taken.add(key);
  }
  for (const [key, node] of nodes) if (!taken.has(key)) kayba.raw[key] = printCompact(node);
  bullet.extra = { kayba };
}

function readCount(path: string[], value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(path, `${EXPECTED_COUNT}, found ${describeFound(value)}`);
  }
  return value;
}

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Milliseconds since the epoch of a Python isoformat() timestamp (microseconds are cut to
 * milliseconds). One without an offset is read as UTC, the zone kayba writes in.
 */
function instantOf(timestamp: string): number | null {
  const match = TIMESTAMP.exec(timestamp);
  if (!match) return null;
  const [, date, time, fraction = "0", zone = "Z"] = match;
  const offset = zone.toUpperCase() === "Z" ? "Z" : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const instant = Date.parse(`${date}T${time}.${fraction.padEnd(3, "0").slice(0, 3)}${offset}`);
  return Number.isNaN(instant) ? null : instant;
}

/**
 * Sections as kayba lists them, with each skill once, in its own section (the `section` its skill
 * object names, which is what kayba's prompt shows). kayba itself loads every listing as written:
 * add_skill with an id it already has lists the id again (in the same section or another one), and
 * a hard remove then leaves the other listing naming nothing. Those listings are left out here,
 * and the warnings say which one was kept.
 */
function readSections(
  collection: KaybaCollection,
  node: JsonNode | undefined,
  skills: Map<string, ReadSkill>,
  warnings: string[],
): SectionDoc[] {
  if (node !== undefined && node.kind !== "object") {
    fail(["sections"], `expected an object mapping section names to lists of ids, found ${describeFound(valueOf(node))}`);
  }
  const placed = new Set<string>();
  const repeated: string[] = [];
  const elsewhere: string[] = [];
  const dangling: string[] = [];
  // Entries from the tree, so a section named like a number ("42") keeps its place.
  const entries = [...new Map(node?.kind === "object" ? node.entries : [])].map(([name, ids]) => [name, valueOf(ids)] as const);
  const sections = entries.map(([name, ids]): SectionDoc => {
    if (!Array.isArray(ids)) fail(["sections", name], `expected a list of skill ids, found ${describeFound(ids)}`);
    const bullets: BulletDoc[] = [];
    ids.forEach((id: unknown, index) => {
      const path = jsonPath(["sections", name, index]);
      if (typeof id !== "string") fail(path, `expected a skill id, found ${describeFound(id)}`);
      const skill = skills.get(id);
      if (!skill) dangling.push(`${path} (${quote(id)})`);
      else if (skill.section !== name) elsewhere.push(`${quote(id)} at ${path} (its own section is ${quote(skill.section)})`);
      else if (placed.has(id)) repeated.push(`${quote(id)} at ${path}`);
      else {
        placed.add(id);
        bullets.push(skill.bullet);
      }
    });
    return { name, slug: kaybaSlug(name, ids), bullets };
  });
  // Not listed in its own section (or at all): it joins the end of that section, created when missing.
  const unlisted: string[] = [];
  for (const [id, skill] of skills) {
    if (placed.has(id)) continue;
    let section = sections.find((candidate) => candidate.name === skill.section);
    if (!section) {
      section = { name: skill.section, slug: kaybaSlug(skill.section, []), bullets: [] };
      sections.push(section);
    }
    section.bullets.push(skill.bullet);
    unlisted.push(`${quote(id)} (to ${quote(skill.section)})`);
  }
  const onceEach = "An export lists each skill once, in its own section.";
  if (repeated.length > 0) {
    warnings.push(
      `Skills listed again in the same section (kayba's add_skill with an id it already has does this) were kept at their first listing: ${listInWords(repeated)}. ${onceEach}`,
    );
  }
  if (elsewhere.length > 0) {
    warnings.push(
      `Skills listed in a section other than their own (kayba's add_skill with an id it already has, into another section) were kept in their own section, as kayba shows them: ${listInWords(elsewhere)}. ${onceEach}`,
    );
  }
  if (dangling.length > 0) {
    warnings.push(
      `Listings of ids that are not in ${collection} were left out (kayba keeps them but shows no skill for them): ${listInWords(dangling)}.`,
    );
  }
  if (unlisted.length > 0) {
    warnings.push(`Skills their own section does not list were added at the end of it: ${listInWords(unlisted)}.`);
  }
  return sections;
}

/** The prefix the section's ids use, else kayba's own rule: the first word of the name, lowercased. */
function kaybaSlug(name: string, ids: readonly unknown[]): string {
  const inUse = mostCommonIdPrefix(ids.filter((id): id is string => typeof id === "string"));
  return inUse ?? (name.trim().split(/\s+/)[0]?.toLowerCase() || "sec");
}

function readNextId(value: unknown): number | undefined {
  return value === undefined ? undefined : readCount(["next_id"], value);
}

function fail(path: string | readonly PropertyKey[], problem: string): never {
  throw new PlaybookParseError({ format: "kayba", path: typeof path === "string" ? path : jsonPath(path), problem });
}

// ---------------------------------------------------------------------------------------------

/** The flavour a kayba source was written in, or null when the playbook did not come from kayba. */
function sourceKaybaFlavour(hints: DocumentHints): KaybaFlavour | null {
  if (hints.kaybaKeyOrder === undefined) return null;
  if (hints.kaybaCollection === "bullets") return "bullets";
  return hints.kaybaCounters === false ? "skills" : "skills-counters";
}

/**
 * A skillbook in one flavour; by default the flavour the playbook came in, else `skills-counters`
 * (it keeps the counters for kayba 0.8 to 0.9.2 and is read by later versions too). Archived bullets
 * are written with kayba's inactive status, except in `bullets`, which cannot mark them.
 */
export function serializeKayba(doc: PlaybookDocument, flavour?: KaybaFlavour): string {
  const source = sourceKaybaFlavour(doc.hints);
  const target = flavour ?? source ?? "skills-counters";
  const asSource = source === target;
  const collection: KaybaCollection = target === "bullets" ? "bullets" : "skills";
  const skills = new Map<string, JsonNode>();
  const sections: [string, JsonNode][] = [];
  const seenSections = new Set<string>();
  for (const section of doc.sections) {
    if (seenSections.has(section.name)) {
      throw new PlaybookExportError("kayba", `Cannot write kayba JSON: two sections are named ${quote(section.name)}.`);
    }
    seenSections.add(section.name);
    const bullets = section.bullets.filter((bullet) => target !== "bullets" || bullet.status === "active");
    sections.push([section.name, { kind: "plain", value: bullets.map((bullet) => bullet.id) }]);
    for (const bullet of bullets) {
      if (skills.has(bullet.id))
        throw new PlaybookExportError("kayba", `Cannot write kayba JSON: two bullets have the id ${quote(bullet.id)}.`);
      skills.set(bullet.id, skillNode(bullet, section.name, target, asSource));
    }
  }
  const order = asSource ? (doc.hints.kaybaSkillOrder ?? []) : [];
  const skillEntries = order.length === 0 ? [...skills] : takeOrdered(skills, order);

  const fromKayba = source !== null;
  const values = new Map<string, JsonNode>(
    fromKayba ? extrasOf(doc.hints) : target === "bullets" ? [] : [["similarity_decisions", treeOf({})]],
  );
  values.set(collection, { kind: "object", entries: skillEntries });
  values.set("sections", { kind: "object", entries: sections });
  values.set("next_id", { kind: "number", text: String(nextIdOf(doc, fromKayba)) });
  const sourceOrder = (doc.hints.kaybaKeyOrder ?? []).map((key) => (key === doc.hints.kaybaCollection ? collection : key));
  const root: JsonNode = {
    kind: "object",
    entries: takeOrdered(values, sourceOrder, [collection, "sections", "next_id", "similarity_decisions"]),
  };
  const json = printTree(root);
  // Python's json.dump writes no final newline and LF; other layout is only kept from a kayba source.
  const text = fromKayba && doc.hints.trailingNewline ? `${json}\n` : json;
  return fromKayba && doc.hints.lineEnding === "\r\n" ? text.replaceAll("\n", "\r\n") : text;
}

/** Top-level keys other than the skills, sections and next_id, as the source wrote them. */
function extrasOf(hints: DocumentHints): [string, JsonNode][] {
  if (hints.kaybaExtraText) return Object.entries(hints.kaybaExtraText).map(([key, text]) => [key, parseTree(text)]);
  return Object.entries(hints.kaybaExtra ?? {}).map(([key, value]) => [key, treeOf(value)]);
}

/**
 * The file's own next_id unless ACE Studio numbered bullets beyond it: a kayba file whose next_id
 * lags behind its ids (kayba's add_skill with explicit ids does not move it) comes back as it was.
 */
function nextIdOf(doc: PlaybookDocument, fromKayba: boolean): number {
  const ids = doc.sections.flatMap((section) => section.bullets.map((bullet) => bullet.id));
  const highest = Math.max(doc.lastIdNumber ?? 0, highestIdNumber(ids));
  if (!fromKayba || doc.hints.kaybaNextId === undefined) return Math.max(doc.hints.kaybaNextId ?? 0, highest);
  const fromFile = doc.sections.flatMap((section) =>
    section.bullets.filter((bullet) => readKaybaExtra(bullet.extra)).map((bullet) => bullet.id),
  );
  const known = Math.max(doc.hints.kaybaNextId, highestIdNumber(fromFile));
  return highest > known ? highest : doc.hints.kaybaNextId;
}

const NO_COUNTERS = { helpful: 0, harmful: 0, neutral: 0 } as const;
const NO_SOURCES: readonly never[] = [];

/**
 * A skill for a bullet that did not come from a kayba file, as kayba's to_dict writes one add_skill
 * made (no embedding or sources yet; kayba 0.5's Bullet has neither, nor justification, evidence or
 * status), in the flavour's SKILL_KEYS order, built as one object literal (JSON.stringify leaves out
 * a timestamp the bullet lacks): through the map and ordering of a skill read from a file, the
 * skills took 35 ms of a 10,000-bullet export's 125 on PGlite, and set key by key 10 ms of 50.
 */
function freshSkill(bullet: BulletDoc, section: string, flavour: KaybaFlavour): Record<string, unknown> {
  const { helpful, harmful, neutral } = bullet.counters ?? NO_COUNTERS;
  const { id, content, createdAt, updatedAt } = bullet;
  if (flavour === "bullets") return { id, section, content, helpful, harmful, neutral, created_at: createdAt, updated_at: updatedAt };
  const justification = bullet.justification ?? null;
  const evidence = bullet.evidence ?? null;
  const status = bullet.status === "active" ? "active" : INACTIVE_STATUS;
  if (flavour === "skills") {
    return { id, section, content, justification, evidence, created_at: createdAt, updated_at: updatedAt, status, sources: NO_SOURCES };
  }
  return {
    id,
    section,
    content,
    justification,
    evidence,
    helpful,
    harmful,
    neutral,
    created_at: createdAt,
    updated_at: updatedAt,
    embedding: null,
    status,
    sources: NO_SOURCES,
  };
}

/** A value kept as its tree, which JSON.stringify would print otherwise than the file has it (1.0, …). */
class Kept {
  constructor(readonly node: JsonNode) {}
}

/** A stored JSON text as a plain value when JSON.stringify prints it back the same, else its tree. */
function plainOrKept(text: string): unknown {
  const node = parseTree(text);
  const plain = plainOf(node);
  return plain === NOT_PLAIN ? new Kept(node) : plain;
}

/**
 * The skill object, as a plain value when it can be: then the whole skillbook is printed by one call
 * of JSON.stringify (a tree node per value made a 10,000-skill export 1.5 times slower).
 */
function skillNode(bullet: BulletDoc, section: string, flavour: KaybaFlavour, asSource: boolean): JsonNode {
  const kayba = readKaybaExtra(bullet.extra);
  if (!kayba) return { kind: "plain", value: freshSkill(bullet, section, flavour) };
  const values = new Map<string, unknown>([
    ...Object.entries(kayba.fields ?? {}),
    ...Object.entries(kayba.raw).map(([key, text]) => [key, plainOrKept(text)] as const),
  ]);
  const setText = (key: string, value: string | undefined) => {
    if (value !== undefined) values.set(key, value);
  };
  setText("id", bullet.id);
  setText("section", section);
  setText("content", bullet.content);
  setText("justification", bullet.justification);
  setText("evidence", bullet.evidence);
  const counters = bullet.counters ?? NO_COUNTERS;
  for (const name of COUNTER_KEYS) {
    if (flavour === "skills") values.delete(name);
    else values.set(name, counters[name]);
  }
  for (const [key, field] of TIMESTAMP_KEYS) setText(key, timestampToWrite(bullet[field], kayba[field]));
  setText("status", bullet.status === "active" ? "active" : inactiveStatus(kayba.status));

  if (asSource) {
    for (const [key, implied] of Object.entries(IMPLIED_VALUES)) {
      const value = values.get(key);
      const plain = value instanceof Kept ? valueOf(value.node) : value;
      if (!kayba.keyOrder.includes(key) && values.has(key) && JSON.stringify(plain) === JSON.stringify(implied)) values.delete(key);
    }
    return objectNode(takeOrdered(values, kayba.keyOrder, SKILL_KEYS[flavour]));
  }
  // Another flavour than the source's: that version's dataclass decides the keys.
  if (flavour === "bullets") {
    for (const key of values.keys()) if (!SKILL_KEYS.bullets.includes(key)) values.delete(key);
  }
  const embedding = values.get("embedding");
  if (flavour === "skills" && (embedding === null || (embedding instanceof Kept && embedding.node.kind === "null")))
    values.delete("embedding");
  if (flavour === "skills-counters" && !values.has("embedding")) values.set("embedding", null);
  return objectNode(takeOrdered(values, SKILL_KEYS[flavour]));
}

/** Plain values and kept trees in an object node; a plain one when none is kept and no key would move. */
function objectNode(entries: [string, unknown][]): JsonNode {
  const plain = entries.some(([, value]) => value instanceof Kept) ? NOT_PLAIN : plainObjectOf(entries);
  if (plain !== NOT_PLAIN) return { kind: "plain", value: plain };
  return { kind: "object", entries: entries.map(([key, value]) => [key, value instanceof Kept ? value.node : treeOf(value)]) };
}

/** The source text when it denotes the same millisecond as the document's value, else that value. */
function timestampToWrite(iso: string | undefined, source: string | undefined): string | undefined {
  if (source === undefined) return iso;
  if (iso === undefined || instantOf(source) === Date.parse(iso)) return source;
  return iso;
}

function inactiveStatus(source: unknown): string {
  return typeof source === "string" && source !== "active" ? source : INACTIVE_STATUS;
}

/** Extras are stored as JSON, so they are read back defensively; the shape stored before `raw` reads too. */
export function readKaybaExtra(extra: Record<string, unknown> | undefined): KaybaBulletExtra | null {
  const kayba = extra?.kayba;
  if (!isJsonObject(kayba) || !Array.isArray(kayba.keyOrder)) return null;
  const raw = isJsonObject(kayba.raw) ? kayba.raw : {};
  if (!isJsonObject(kayba.raw) && !isJsonObject(kayba.fields)) return null;
  const read: KaybaBulletExtra = {
    keyOrder: kayba.keyOrder.filter((key): key is string => typeof key === "string"),
    raw: Object.fromEntries(Object.entries(raw).filter((entry): entry is [string, string] => typeof entry[1] === "string")),
  };
  if (isJsonObject(kayba.fields)) read.fields = kayba.fields;
  if (typeof kayba.createdAt === "string") read.createdAt = kayba.createdAt;
  if (typeof kayba.updatedAt === "string") read.updatedAt = kayba.updatedAt;
  if (kayba.status !== undefined) read.status = kayba.status;
  return read;
}

/**
 * Entries in the first order that names them (source order, then the canonical one, then insertion),
 * taken out of the map: a Set of keys per skill made a 10,000-skill export a quarter slower.
 */
function takeOrdered<T>(values: Map<string, T>, ...orders: readonly (readonly string[])[]): [string, T][] {
  const entries: [string, T][] = [];
  for (const order of orders) {
    for (const key of order) {
      const node = values.get(key);
      if (node === undefined) continue;
      entries.push([key, node]);
      values.delete(key);
    }
  }
  for (const entry of values) entries.push(entry);
  values.clear();
  return entries;
}
