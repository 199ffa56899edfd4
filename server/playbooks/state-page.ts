// A page of the bullet list from the playbook state the delta engine keeps per version
// (server/deltas/engine-state.ts), when it holds the playbook's current one. The order is computed
// in memory once per version and sort, and a page reads from the database only what its rows hold
// beyond the state (primary key, update time): sorting 10,000 bullets by score in SQL scans and
// sorts every one of them on each request (14 ms on PGlite). The order is the SQL list's
// (repository.ts orderBy); an integration test compares the two.
import type { z } from "zod";
import { compareBullets, compareText, type PlaybookState } from "@/server/ace/delta";
import type { BulletState } from "@/server/ace/history";
import { classifyBullet } from "@/server/ace/signals";
import type { Db } from "@/server/db/client";
import { cachedEntry, loadInBackground } from "@/server/deltas/engine-state";
import { bulletRowKeys, DEFAULT_DIRECTION } from "./repository";
import type { BulletPage, BulletRow, listBulletsInput } from "./schemas";

type ListBulletsQuery = z.output<typeof listBulletsInput>;
type Sort = ListBulletsQuery["sort"];
type Direction = "asc" | "desc";

/**
 * The page, or null when the state cannot give it: no current state is cached (one is then loaded
 * in the background), the list searches for text outside ASCII (see Search) or sorts by update time
 * (which the state does not hold), or a write came in before the rows were read.
 */
export async function pageFromState(db: Db, query: ListBulletsQuery): Promise<BulletPage | null> {
  if (query.sort === "recent") return null;
  const search = query.search ? searchOf(query.search) : undefined;
  if (search === null) return null;
  const entry = cachedEntry(db, query.playbookId);
  // The next page finds it: a state is loaded once (or caught up with a few versions) and moves on with every write.
  if (!entry) return loadedLater(db, query.playbookId);
  if (search && lowersIntoAscii(entry.state)) return null;
  const ordered = orderOf(entry.state, query.sort, query.order ?? DEFAULT_DIRECTION[query.sort]);
  const { page, total } = pageOf(ordered, query, search);
  const { keys, version } = await bulletRowKeys(
    db,
    query.playbookId,
    page.map((bullet) => bullet.externalId),
  );
  // Every write bumps the version, so keys read at the state's version belong to the state's bullets.
  if (version !== entry.version) return version === null ? null : loadedLater(db, query.playbookId);
  const items: BulletRow[] = [];
  for (const bullet of page) {
    const row = keys.get(bullet.externalId);
    if (!row) return loadedLater(db, query.playbookId);
    // What the list shows of a state (a test pins a row's fields): not its place or archive details.
    const { position: _position, archivedReason: _reason, mergedInto: _into, pinned, ...shown } = bullet;
    items.push({ id: row.id, ...shown, pinned: pinned === true, updatedAt: row.updatedAt, signal: classifyBullet(bullet) });
  }
  const end = query.cursor + items.length;
  return { total, nextCursor: end < total ? end : null, items };
}

function loadedLater(db: Db, playbookId: string): null {
  loadInBackground(db, playbookId);
  return null;
}

/**
 * The SQL list's search (repository.ts bulletFilter): the text in the content, or the text without
 * its brackets in the id, ignoring case. In SQL that is lower() of both sides, which is the
 * database's: for text outside ASCII it depends on its locale, so only an ASCII search is matched
 * here (null: leave it to SQL). A non-ASCII character lowers to non-ASCII except two, KELVIN SIGN
 * and LATIN CAPITAL LETTER I WITH DOT ABOVE (to "k" and "i" in some locales, not in PGlite's C):
 * with neither in the text, an ASCII search matches there exactly when it matches ignoring ASCII
 * case, which is what a regular expression's i flag does without the u flag (ECMAScript's
 * Canonicalize never maps a character outside ASCII into it). A playbook holding either is searched by SQL.
 */
interface Search {
  content: RegExp;
  id: RegExp;
}

const NOT_ASCII = /[^\x00-\x7f]/;
const LOWERS_INTO_ASCII = /[\u0130\u212a]/;

function searchOf(text: string): Search | null {
  if (NOT_ASCII.test(text)) return null;
  const pattern = (value: string) => new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
  return { content: pattern(text), id: pattern(text.replace(/^\[|\]$/g, "")) };
}

// Whether a state's texts hold a character the database may lower into ASCII (see Search), found once per state.
const LOWERING = new WeakMap<PlaybookState, boolean>();

function lowersIntoAscii(state: PlaybookState): boolean {
  let found = LOWERING.get(state);
  if (found === undefined) {
    found = false;
    for (const bullet of state.bullets.values()) {
      if (LOWERS_INTO_ASCII.test(bullet.content) || LOWERS_INTO_ASCII.test(bullet.externalId)) found = true;
    }
    LOWERING.set(state, found);
  }
  return found;
}

/** The ordered bullets the filter keeps (status, sections, signals, search): how many, and the page of them. */
function pageOf(ordered: readonly BulletState[], query: ListBulletsQuery, search: Search | undefined) {
  const sections = query.sectionIds?.length ? new Set(query.sectionIds) : null;
  const signals = query.signals?.length ? new Set(query.signals) : null;
  const page: BulletState[] = [];
  let total = 0;
  for (const bullet of ordered) {
    if (query.status !== "all" && bullet.status !== query.status) continue;
    if (sections && !sections.has(bullet.sectionId)) continue;
    if (signals && !signals.has(classifyBullet(bullet))) continue;
    if (search && !search.content.test(bullet.content) && !search.id.test(bullet.externalId)) continue;
    if (total >= query.cursor && page.length < query.limit) page.push(bullet);
    total += 1;
  }
  return { page, total };
}

// Every bullet of a state in each order asked for, kept with the state (a newer version is a new
// state): at most the ten orders (five sorts, two directions), 8 bytes a bullet each, against the
// 300 a bullet the state itself takes (server/deltas/state-cache.ts).
const ORDERS = new WeakMap<PlaybookState, Map<string, BulletState[]>>();

function orderOf(state: PlaybookState, sort: Exclude<Sort, "recent">, direction: Direction): BulletState[] {
  let orders = ORDERS.get(state);
  if (!orders) {
    orders = new Map();
    ORDERS.set(state, orders);
  }
  const key = `${sort} ${direction}`;
  let ordered = orders.get(key);
  if (!ordered) {
    ordered = [...state.bullets.values()].sort(comparatorOf(state, sort, direction));
    orders.set(key, ordered);
  }
  return ordered;
}

/** A section's place, as the SQL list reads it; a bullet of a section the state lacks comes last (SQL's NULL). */
const UNKNOWN_SECTION = Number.MAX_SAFE_INTEGER;

/**
 * repository.ts orderBy: the sort's key in the direction asked, ties in reading order (the section's
 * position, the bullet's, its id), ascending. Ids compare by code unit, as the SQL list's COLLATE "C".
 */
function comparatorOf(state: PlaybookState, sort: Exclude<Sort, "recent">, direction: Direction) {
  const sectionPosition = new Map(state.sections.map((section) => [section.id, section.position]));
  const placeOf = (bullet: BulletState) => sectionPosition.get(bullet.sectionId) ?? UNKNOWN_SECTION;
  const byId = (a: BulletState, b: BulletState) => compareText(a.externalId, b.externalId);
  // Within a section's place, the engine's reading order (compareBullets: position, then id).
  const reading = (a: BulletState, b: BulletState) => placeOf(a) - placeOf(b) || compareBullets(a, b);
  const sign = direction === "asc" ? 1 : -1;
  switch (sort) {
    case "position":
      return (a: BulletState, b: BulletState) => sign * reading(a, b);
    case "id":
      return (a: BulletState, b: BulletState) => sign * byId(a, b);
    case "helpful":
      return (a: BulletState, b: BulletState) => sign * (a.helpful - b.helpful) || reading(a, b);
    case "harmful":
      return (a: BulletState, b: BulletState) => sign * (a.harmful - b.harmful) || reading(a, b);
    case "score":
      return (a: BulletState, b: BulletState) => sign * (a.helpful - a.harmful - (b.helpful - b.harmful)) || reading(a, b);
  }
}
