// kayba / ACE-open JSON skillbooks: `skills` (older files: `bullets`) keyed by id, `sections` mapping
// each section name to its ordered ids, and `next_id`. kayba writes them with Python's
// json.dump(indent=2, ensure_ascii=False), which JSON.stringify(value, null, 2) reproduces, so
// everything ACE Studio does not model is kept in extras and an import-then-export is byte-identical.
// Two limits of that promise: JavaScript puts integer-like keys ("42") first in an object, and floats
// print differently (Python `1.0`, JavaScript `1`); files with either may come back reformatted.
import type { BulletDoc, BulletStatus, DocumentHints, PlaybookDocument, SectionDoc } from "../document";
import { highestIdNumber, mostCommonIdPrefix } from "../ids";
import { lineEndingOf } from "./ace-text";
import {
  EXPECTED_COUNT,
  PlaybookParseError,
  describeFound,
  isJsonObject,
  jsonPath,
  parseJsonText,
  quote,
} from "./errors";

type KaybaCollection = "skills" | "bullets";

/** What a bullet from kayba keeps in `extra.kayba` for a byte-identical export. */
export interface KaybaBulletExtra {
  /** The skill object's keys in source order. */
  keyOrder: string[];
  /** Keys ACE Studio does not model (embedding, sources, …) and modelled keys whose value it could not read, as written. */
  fields: Record<string, unknown>;
  /** created_at / updated_at exactly as written (Python writes microseconds). */
  createdAt?: string;
  updatedAt?: string;
  /** The source status; anything but "active" reads as archived. */
  status?: unknown;
}

// The order of kayba's Skill dataclass and Skillbook.to_dict, as in the published skillbooks.
const SKILL_KEYS = [
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
];
const COUNTER_KEYS = ["helpful", "harmful", "neutral"] as const;
const TEXT_KEYS = ["justification", "evidence"] as const;
const TIMESTAMP_KEYS = [
  ["created_at", "createdAt"],
  ["updated_at", "updatedAt"],
] as const;
// kayba's soft-deleted status.
const INACTIVE_STATUS = "invalid";
// Values kayba assumes when a key is absent, so an older file that left them out gets none added.
const IMPLIED_VALUES: Record<string, unknown> = { helpful: 0, harmful: 0, neutral: 0, status: "active" };

export function parseKayba(text: string): PlaybookDocument {
  const root = parseJsonText(text, "kayba");
  if (!isJsonObject(root)) fail([], `expected a JSON object, found ${describeFound(root)}`);
  const collection = collectionOf(root);
  const skills = readSkills(collection, root[collection]);
  const sections = readSections(collection, root.sections, skills);
  const nextId = readNextId(root.next_id);
  const hints: DocumentHints = {
    kaybaCollection: collection,
    kaybaKeyOrder: Object.keys(root),
    kaybaExtra: Object.fromEntries(
      Object.entries(root).filter(([key]) => key !== collection && key !== "sections" && key !== "next_id"),
    ),
    trailingNewline: text.endsWith("\n"),
    lineEnding: lineEndingOf(text),
  };
  if (nextId !== undefined) hints.kaybaNextId = nextId;
  return { sections, lastIdNumber: Math.max(nextId ?? 0, highestIdNumber(skills.keys())), hints };
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

function readSkills(collection: KaybaCollection, raw: unknown): Map<string, ReadSkill> {
  if (!isJsonObject(raw)) fail([collection], `expected an object mapping ids to skills, found ${describeFound(raw)}`);
  return new Map(Object.entries(raw).map(([key, value]) => [key, readSkill([collection, key], key, value)]));
}

function readSkill(path: string[], key: string, raw: unknown): ReadSkill {
  if (!isJsonObject(raw)) fail(path, `expected a skill object, found ${describeFound(raw)}`);
  const at = (field: string) => [...path, field];
  if (raw.id !== key) fail(at("id"), `expected ${quote(key)}, the key the skill is stored under, found ${describeFound(raw.id)}`);
  if (typeof raw.section !== "string") fail(at("section"), `expected a section name, found ${describeFound(raw.section)}`);
  if (typeof raw.content !== "string") fail(at("content"), `expected a string, found ${describeFound(raw.content)}`);
  const counters = { helpful: 0, harmful: 0, neutral: 0 };
  for (const name of COUNTER_KEYS) counters[name] = readCount(at(name), raw[name]);
  const status: BulletStatus = raw.status === undefined || raw.status === "active" ? "active" : "archived";
  const bullet: BulletDoc = { id: key, content: raw.content, counters, status };
  readOptionalFields(raw, bullet);
  return { section: raw.section, bullet };
}

/** Texts and timestamps the document can hold go to the bullet; the rest, as written, to `extra.kayba`. */
function readOptionalFields(raw: Record<string, unknown>, bullet: BulletDoc): void {
  const kayba: KaybaBulletExtra = { keyOrder: Object.keys(raw), fields: {} };
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
  kayba.fields = Object.fromEntries(Object.entries(raw).filter(([key]) => !taken.has(key)));
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

function readSections(collection: KaybaCollection, raw: unknown, skills: Map<string, ReadSkill>): SectionDoc[] {
  if (raw !== undefined && !isJsonObject(raw)) {
    fail(["sections"], `expected an object mapping section names to lists of ids, found ${describeFound(raw)}`);
  }
  const listedAt = new Map<string, string>();
  const sections = Object.entries(raw ?? {}).map(([name, ids]): SectionDoc => {
    if (!Array.isArray(ids)) fail(["sections", name], `expected a list of skill ids, found ${describeFound(ids)}`);
    const bullets = ids.map((id: unknown, index) => {
      const path = jsonPath(["sections", name, index]);
      if (typeof id !== "string") fail(path, `expected a skill id, found ${describeFound(id)}`);
      const skill = skills.get(id);
      if (!skill) fail(path, `names ${quote(id)}, which is not in ${collection}`);
      const earlier = listedAt.get(id);
      if (earlier) fail(path, `${quote(id)} is already listed at ${earlier}`);
      if (skill.section !== name) {
        fail([collection, id, "section"], `is ${quote(skill.section)}, but the skill is listed in ${path}`);
      }
      listedAt.set(id, path);
      return skill.bullet;
    });
    return { name, slug: kaybaSlug(name, ids), bullets };
  });
  // kayba's loader keeps such a skill but no listing shows it; rather than drop it, it joins the
  // end of the section its own `section` names, which is created at the end when missing.
  for (const [id, skill] of skills) {
    if (listedAt.has(id)) continue;
    let section = sections.find((candidate) => candidate.name === skill.section);
    if (!section) {
      section = { name: skill.section, slug: kaybaSlug(skill.section, []), bullets: [] };
      sections.push(section);
    }
    section.bullets.push(skill.bullet);
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

/** Archived bullets are written too, with kayba's inactive status: the format can hold them. */
export function serializeKayba(doc: PlaybookDocument): string {
  const collection = doc.hints.kaybaCollection ?? "skills";
  const skills = new Map<string, unknown>();
  const sections = new Map<string, unknown>();
  for (const section of doc.sections) {
    if (sections.has(section.name)) throw new Error(`Cannot write kayba JSON: two sections are named ${quote(section.name)}.`);
    sections.set(section.name, section.bullets.map((bullet) => bullet.id));
    for (const bullet of section.bullets) {
      if (skills.has(bullet.id)) throw new Error(`Cannot write kayba JSON: two bullets have the id ${quote(bullet.id)}.`);
      skills.set(bullet.id, skillObject(bullet, section.name));
    }
  }
  const nextId = Math.max(doc.hints.kaybaNextId ?? 0, doc.lastIdNumber ?? 0, highestIdNumber(skills.keys()));
  const fromKayba = doc.hints.kaybaKeyOrder !== undefined;
  // A skillbook kayba did not write gets what kayba's Skillbook.to_dict writes.
  const root = new Map<string, unknown>(Object.entries(fromKayba ? (doc.hints.kaybaExtra ?? {}) : { similarity_decisions: {} }));
  root.set(collection, objectOf(skills));
  root.set("sections", objectOf(sections));
  root.set("next_id", nextId);
  const json = JSON.stringify(objectOf(root, doc.hints.kaybaKeyOrder ?? [], [collection, "sections", "next_id"]), null, 2);
  // Python's json.dump writes no final newline and LF; other layout is only kept from a kayba source.
  const text = fromKayba && doc.hints.trailingNewline ? `${json}\n` : json;
  return fromKayba && doc.hints.lineEnding === "\r\n" ? text.replaceAll("\n", "\r\n") : text;
}

function skillObject(bullet: BulletDoc, section: string): Record<string, unknown> {
  const kayba = readKaybaExtra(bullet.extra);
  // A skill kayba never saw gets the values kayba's dataclass writes for a fresh one.
  const values = new Map<string, unknown>(
    Object.entries(kayba ? kayba.fields : { justification: null, evidence: null, embedding: null, sources: [] }),
  );
  const set = (key: string, value: unknown) => {
    if (value !== undefined) values.set(key, value);
  };
  const counters = bullet.counters ?? { helpful: 0, harmful: 0, neutral: 0 };
  set("id", bullet.id);
  set("section", section);
  set("content", bullet.content);
  set("justification", bullet.justification);
  set("evidence", bullet.evidence);
  for (const name of COUNTER_KEYS) set(name, counters[name]);
  for (const [key, field] of TIMESTAMP_KEYS) set(key, timestampToWrite(bullet[field], kayba?.[field]));
  set("status", bullet.status === "active" ? "active" : inactiveStatus(kayba?.status));
  if (kayba) {
    for (const [key, implied] of Object.entries(IMPLIED_VALUES)) {
      if (!kayba.keyOrder.includes(key) && values.get(key) === implied) values.delete(key);
    }
  }
  return objectOf(values, kayba?.keyOrder ?? [], SKILL_KEYS);
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

/** Extras are stored as JSON, so they are read back defensively. */
export function readKaybaExtra(extra: Record<string, unknown> | undefined): KaybaBulletExtra | null {
  const kayba = extra?.kayba;
  if (!isJsonObject(kayba) || !Array.isArray(kayba.keyOrder) || !isJsonObject(kayba.fields)) return null;
  const read: KaybaBulletExtra = {
    keyOrder: kayba.keyOrder.filter((key): key is string => typeof key === "string"),
    fields: kayba.fields,
  };
  if (typeof kayba.createdAt === "string") read.createdAt = kayba.createdAt;
  if (typeof kayba.updatedAt === "string") read.updatedAt = kayba.updatedAt;
  if (kayba.status !== undefined) read.status = kayba.status;
  return read;
}

/**
 * A plain object with the keys in the first order that names them (source order, then the canonical
 * one, then insertion). Object.fromEntries defines keys, so even "__proto__" stays an ordinary key.
 */
function objectOf(values: Map<string, unknown>, ...orders: readonly (readonly string[])[]): Record<string, unknown> {
  const keys = new Set([...orders.flat(), ...values.keys()]);
  return Object.fromEntries([...keys].filter((key) => values.has(key)).map((key) => [key, values.get(key)]));
}
