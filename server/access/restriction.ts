// The playbook restriction, one rule for every procedure and route: a caller limited to some
// playbooks (today an API key with a playbook list; later per-playbook roles) may act only on
// things of those playbooks. Each procedure declares how its input addresses playbooks (meta
// `playbook`, read by server/access/restriction.int.test.ts); the check resolves the playbooks
// before the procedure runs, lists filter by the caller's scope, and studio-wide procedures refuse.
import type { ApiScope } from "@/server/apikeys/schemas";
import type { Principal } from "@/server/auth/principal";
import type { DbOrTx } from "@/server/db/client";
import { AppError } from "@/server/errors/app-error";
import * as repo from "./repository";

/** The playbooks a caller may touch: every one, or these ids. */
export type PlaybookScope = "all" | readonly string[];

/**
 * How a procedure's input addresses playbooks:
 * - playbookId, deltaId, deltaIds, runId, traceId, traceIds: the field of that name;
 * - playbookId?: the same, or omitted to list across playbooks (answered for the caller's only);
 * - playbookId!: the same, and omitting it means studio-wide (the whole audit log);
 * - experimentKey: `key`, the experiment (its playbook and those its variants serve);
 * - experimentPlaybooks: `playbook` and each `variants[].playbook` (names) of a new experiment;
 * - tracePlaybooks: each `traces[].playbook` (names);
 * - selection: `selection.playbookId`;
 * - importTarget: `target`, an existing playbook's id; a new playbook is studio-wide;
 * - apiKey: `keyId`, every playbook that key may touch;
 * - newApiKey: the procedure bounds the key it creates by the caller's rights (newKeyRefusal);
 * - listed: lists across playbooks, answered for the caller's playbooks only;
 * - studio: studio-wide (users, budgets, studio defaults, storage), refused to a restricted caller;
 * - own: the caller's own account or session, or signing in: no playbook;
 * - none: a calculation that reads nothing stored.
 */
export const PLAYBOOK_ADDRESSES = [
  "playbookId",
  "playbookId?",
  "playbookId!",
  "deltaId",
  "deltaIds",
  "runId",
  "traceId",
  "traceIds",
  "experimentKey",
  "experimentPlaybooks",
  "tracePlaybooks",
  "selection",
  "importTarget",
  "apiKey",
  "newApiKey",
  "listed",
  "studio",
  "own",
  "none",
] as const;
export type PlaybookAddress = (typeof PLAYBOOK_ADDRESSES)[number];

/** Where per-playbook roles will plug in: today only an API key's playbook list restricts. */
export function playbookScopeOf(principal: Principal): PlaybookScope {
  if (principal.kind === "apikey" && principal.playbookIds !== "all") return principal.playbookIds;
  return "all";
}

export function inScope(scope: PlaybookScope, playbookId: string): boolean {
  const id = playbookId.toLowerCase();
  return scope === "all" || scope.some((allowed) => allowed.toLowerCase() === id);
}

/** A list's rows of the caller's playbooks only. */
export function visibleTo<T>(scope: PlaybookScope, rows: readonly T[], playbookIdOf: (row: T) => string | null): T[] {
  if (scope === "all") return [...rows];
  return rows.filter((row) => {
    const id = playbookIdOf(row);
    return id !== null && inScope(scope, id);
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STUDIO_WIDE = "users, other people's API keys, budgets, studio defaults, storage, the whole audit log and new playbooks";

/** What a refused call is told: who is restricted to which playbooks, why this call is outside, what to do. */
async function refusal(db: DbOrTx, principal: Principal, scope: readonly string[], why: string): Promise<AppError> {
  const names = await repo.playbookNames(db, scope);
  const who = principal.kind === "apikey" ? `API key "${principal.name}"` : "Your account";
  const list = names.length > 0 ? names.map((name) => `"${name}"`).join(", ") : "no playbook that still exists";
  return new AppError(
    "FORBIDDEN",
    `${who} is restricted to the playbook${names.length === 1 ? "" : "s"} ${list}; ${why}. Nothing was changed. ` +
      "Use a key or account that may touch it (an admin can create one).",
    { details: { restriction: { playbooks: names } } },
  );
}

function field(input: unknown, name: string): unknown {
  return input !== null && typeof input === "object" ? (input as Record<string, unknown>)[name] : undefined;
}

/** A uuid-shaped text, or null: anything else the procedure's schema refuses with a 400. */
function uuidAt(input: unknown, name: string): string | null {
  const value = field(input, name);
  return typeof value === "string" && UUID.test(value) ? value.toLowerCase() : null;
}

function uuidsAt(input: unknown, name: string): string[] {
  const value = field(input, name);
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((item): item is string => typeof item === "string" && UUID.test(item)).map((id) => id.toLowerCase()))];
}

function namesOf(values: unknown[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === "string").map((name) => name.trim()))];
}

/** The playbooks an address names, "studio", or a reason to refuse (what was not found among the caller's). */
type Resolved = { playbookIds: string[]; missing: string | null } | "studio";

async function resolve(db: DbOrTx, address: PlaybookAddress, input: unknown): Promise<Resolved> {
  const found = (playbookIds: (string | null | undefined)[], missing: string | null = null) => ({
    playbookIds: playbookIds.filter((id): id is string => typeof id === "string"),
    missing,
  });
  switch (address) {
    case "own":
    case "none":
    case "listed":
    case "newApiKey":
      return found([]);
    case "studio":
      return "studio";
    case "playbookId":
    case "playbookId?":
      return found([uuidAt(input, "playbookId")]);
    case "playbookId!":
      return field(input, "playbookId") === undefined ? "studio" : found([uuidAt(input, "playbookId")]);
    case "selection":
      return found([uuidAt(field(input, "selection"), "playbookId")]);
    case "importTarget": {
      const target = field(input, "target");
      return field(target, "kind") === "new" ? "studio" : found([uuidAt(target, "playbookId")]);
    }
    case "deltaId":
    case "deltaIds": {
      const ids = address === "deltaId" ? [uuidAt(input, "deltaId")].filter((id) => id !== null) : uuidsAt(input, "deltaIds");
      const playbooks = await repo.playbooksOfDeltas(db, ids);
      return found([...playbooks.values()], ids.length > playbooks.size ? "a delta it names does not exist there" : null);
    }
    case "traceId":
    case "traceIds": {
      const ids = address === "traceId" ? [uuidAt(input, "traceId")].filter((id) => id !== null) : uuidsAt(input, "traceIds");
      const playbooks = await repo.playbooksOfTraces(db, ids);
      return found([...playbooks.values()], ids.length > playbooks.size ? "a trace it names does not exist there" : null);
    }
    case "runId": {
      const id = uuidAt(input, "runId");
      if (id === null) return found([]);
      const playbookId = await repo.playbookOfRun(db, id);
      return found([playbookId], playbookId ? null : "the run it names does not exist there");
    }
    case "experimentKey": {
      const key = field(input, "key");
      if (typeof key !== "string") return found([]);
      const playbooks = await repo.playbooksOfExperiment(db, key.trim());
      return found(playbooks ?? [], playbooks ? null : `no experiment of those has the key "${key.trim()}"`);
    }
    case "experimentPlaybooks":
    case "tracePlaybooks": {
      const values =
        address === "experimentPlaybooks"
          ? [field(input, "playbook"), ...arrayAt(input, "variants").map((variant) => field(variant, "playbook"))]
          : arrayAt(input, "traces").map((trace) => field(trace, "playbook"));
      const names = namesOf(values);
      const ids = await repo.playbookIdsByNames(db, names);
      const unknown = names.filter((name) => !ids.has(name));
      return found(
        [...ids.values()],
        unknown.length > 0 ? `no playbook of those is named ${unknown.map((n) => `"${n}"`).join(", ")}` : null,
      );
    }
    case "apiKey": {
      const id = uuidAt(input, "keyId");
      if (id === null) return found([]);
      const playbooks = await repo.playbooksOfApiKey(db, id);
      if (playbooks === "all") return "studio";
      return found(playbooks ?? [], playbooks ? null : "the API key it names does not exist there");
    }
  }
}

function arrayAt(input: unknown, name: string): unknown[] {
  const value = field(input, name);
  return Array.isArray(value) ? value : [];
}

/**
 * Why a restricted caller's call is outside its playbooks (an AppError FORBIDDEN to throw), or
 * null. Resolved before the call reads or writes anything; an unrestricted caller costs nothing.
 * A procedure that declares no address is refused to a restricted caller: deny by default.
 */
export async function playbookRefusal(
  db: DbOrTx,
  principal: Principal,
  declared: PlaybookAddress | readonly PlaybookAddress[] | undefined,
  input: unknown,
): Promise<AppError | null> {
  const scope = playbookScopeOf(principal);
  if (scope === "all") return null;
  if (declared === undefined) {
    return refusal(db, principal, scope, "this procedure does not say which playbooks it touches, so it is refused");
  }
  for (const address of typeof declared === "string" ? [declared] : declared) {
    const resolved = await resolve(db, address as PlaybookAddress, input);
    if (resolved === "studio") return refusal(db, principal, scope, `this is studio-wide (${STUDIO_WIDE})`);
    if (resolved.missing) return refusal(db, principal, scope, resolved.missing);
    if (resolved.playbookIds.some((id) => !inScope(scope, id))) return refusal(db, principal, scope, "this is about another playbook");
  }
  return null;
}

/** What a route handler acts on, once it has parsed its request: these playbooks, or the whole studio. */
export type PlaybookTarget = { ids?: readonly string[]; names?: readonly string[] } | "studio";

/** Throws (AppError FORBIDDEN) when a restricted caller's request is about playbooks outside its own. */
export async function checkPlaybookTarget(db: DbOrTx, principal: Principal, target: PlaybookTarget): Promise<void> {
  const scope = playbookScopeOf(principal);
  if (scope === "all") return;
  if (target === "studio") throw await refusal(db, principal, scope, `this is studio-wide (${STUDIO_WIDE})`);
  const names = namesOf([...(target.names ?? [])]);
  const byName = await repo.playbookIdsByNames(db, names);
  const unknown = names.filter((name) => !byName.has(name));
  if (unknown.length > 0)
    throw await refusal(db, principal, scope, `no playbook of those is named ${unknown.map((n) => `"${n}"`).join(", ")}`);
  if ([...(target.ids ?? []), ...byName.values()].some((id) => !inScope(scope, id))) {
    throw await refusal(db, principal, scope, "this is about another playbook");
  }
}

/** The rights of an API key about to be created. */
export interface NewKeyRights {
  scopes: readonly ApiScope[];
  playbooks: "all" | readonly string[];
}

/**
 * No caller creates a key with more rights than its own: a key's scopes within the creating key's,
 * its playbooks within the creator's restriction. People and the local operator are bounded by
 * their role alone (creating keys needs an admin already).
 */
export async function checkNewKeyRights(db: DbOrTx, principal: Principal, wanted: NewKeyRights): Promise<void> {
  if (principal.kind === "apikey") {
    const extra = wanted.scopes.filter((scope) => !principal.scopes.includes(scope));
    if (extra.length > 0) {
      throw new AppError(
        "FORBIDDEN",
        `API key "${principal.name}" cannot create a key with scopes it does not hold itself (${extra.join(", ")}). ` +
          "Nothing was created. Choose scopes among its own, or ask an admin.",
        { details: { scopes: extra } },
      );
    }
  }
  const scope = playbookScopeOf(principal);
  if (scope === "all") return;
  if (wanted.playbooks === "all") {
    throw await refusal(db, principal, scope, "it cannot create a key for every playbook; choose among its own");
  }
  if (wanted.playbooks.some((id) => !inScope(scope, id))) {
    throw await refusal(db, principal, scope, "it cannot create a key for another playbook");
  }
}
