// API keys: created by admins, shown once, kept as an HMAC of the secret, checked on every
// /api/v1 request, revoked (rotation is: create a new key, then revoke the old one). A key is bound
// by its creator: it holds admin powers only while that user is an admin, and ends with their account.
import { createHash, randomBytes } from "node:crypto";
import { recordAudit, type AuditSource } from "@/server/audit/record";
import type { AuditActor } from "@/server/audit/schemas";
import type { AuthSettings } from "@/server/auth/config";
import { lockAccounts } from "@/server/auth/repository";
import type { Principal } from "@/server/auth/principal";
import { approximateBytes, cachePerScope } from "@/server/cache/lru";
import { TtlCache } from "@/server/cache/ttl-cache";
import { keyedHash, newToken, sameHash } from "@/server/auth/tokens";
import type { Db, DbOrTx, Tx } from "@/server/db/client";
import { AppError, notFound } from "@/server/errors/app-error";
import * as repo from "./repository";
import {
  API_SCOPES,
  createApiKeyInput,
  creatorLabel,
  transferApiKeyInput,
  type ApiKeyCreator,
  type ApiKeyListItem,
  type ApiKeyOwner,
  type ApiKeyStatus,
  type ApiScope,
  type CreateApiKeyInput,
  type CreatedApiKey,
  type TransferApiKeyInput,
} from "./schemas";

export const KEY_PREFIX = "ace_";
const PUBLIC_ID_BYTES = 8; // 13 base32 characters
const SECRET_BYTES = 32; // 52 base32 characters
const KEY_PATTERN = /^ace_([a-z2-7]{13})_([a-z2-7]{52})$/;
const HMAC_KEY_SETTING = "auth.apiKeyHmacKey";
const DAY_MS = 24 * 60 * 60_000;

// ---- The server's key -----------------------------------------------------------------------------

const storedKeys = new WeakMap<object, Promise<string>>();

/**
 * The key of the HMAC: ACE_SECRET when set, otherwise a random key generated once and kept in the
 * database (so every instance shares it). Changing ACE_SECRET later invalidates existing API keys.
 */
function hmacKey(db: DbOrTx, settings: Pick<AuthSettings, "secret">): Promise<string> {
  if (settings.secret) return Promise.resolve(settings.secret);
  let key = storedKeys.get(db);
  if (!key) {
    key = repo.readOrInsertAppSetting(db, HMAC_KEY_SETTING, randomBytes(32).toString("base64url"));
    storedKeys.set(db, key);
    key.catch(() => storedKeys.delete(db));
  }
  return key;
}

// ---- Create, list, revoke -------------------------------------------------------------------------

function statusOf(key: Pick<repo.ApiKeyRecord, "revokedAt" | "expiresAt">, now: Date): ApiKeyStatus {
  if (key.revokedAt) return "revoked";
  if (key.expiresAt && key.expiresAt <= now) return "expired";
  return "active";
}

function publicSummary(key: repo.ApiKeyRecord) {
  return {
    name: key.name,
    preview: key.preview,
    scopes: key.scopes,
    playbooks: key.allPlaybooks ? "all" : key.playbookIds,
    expiresAt: key.expiresAt,
    rateLimitPerMinute: key.rateLimitPerMinute,
  };
}

export async function createApiKey(
  db: Db,
  source: AuditSource,
  settings: Pick<AuthSettings, "secret">,
  raw: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  const input = createApiKeyInput.parse(raw);
  const playbookIds = input.playbooks === "all" ? [] : [...new Set(input.playbooks)];
  if (playbookIds.length > 0) {
    const known = await repo.playbookNamesById(db, playbookIds);
    const missing = playbookIds.filter((id) => !known.has(id));
    if (missing.length > 0) throw new AppError("NOT_FOUND", `No playbook has the id ${missing.join(", ")}. Choose playbooks that exist.`);
  }
  const publicId = newToken(PUBLIC_ID_BYTES);
  const secret = newToken(SECRET_BYTES);
  const token = `${KEY_PREFIX}${publicId}_${secret}`;
  const key = await hmacKey(db, settings);
  const created = await db.$transaction(async (tx) => {
    const row = await repo.insertApiKey(tx, {
      publicId,
      secretHash: keyedHash(key, secret),
      name: input.name,
      preview: `${KEY_PREFIX}${publicId}_…${secret.slice(-4)}`,
      scopes: [...new Set(input.scopes)].sort((a, b) => API_SCOPES.indexOf(a) - API_SCOPES.indexOf(b)),
      allPlaybooks: input.playbooks === "all",
      playbookIds,
      rateLimitPerMinute: input.rateLimitPerMinute,
      expiresAt: input.expiresInDays ? new Date(Date.now() + input.expiresInDays * DAY_MS) : null,
      createdBy: source.actor.name,
      ...(await creatorFields(tx, source.actor)),
    });
    await recordAudit(tx, source, {
      action: "apikey.create",
      target: { type: "apikey", id: row.id, label: row.name },
      after: publicSummary(row),
    });
    return row;
  });
  return { id: created.id, name: created.name, preview: created.preview, secret: token };
}

// ---- Creators -------------------------------------------------------------------------------------

/**
 * Who creates a key and whose rights bound it. A key made by a key takes that key's owner, so a
 * chain of keys never outlives the person at its start. The server itself (the demo seed, tests'
 * setup) acts as the local operator does.
 */
async function creatorFields(tx: Tx, actor: AuditActor): Promise<repo.KeyCreatorFields> {
  switch (actor.kind) {
    case "user":
      return actor.id
        ? { creatorKind: "user", creatorId: actor.id, ownerKind: "user", ownerUserId: actor.id }
        : { creatorKind: null, creatorId: null, ownerKind: null, ownerUserId: null };
    case "apikey": {
      const parent = actor.id ? await repo.findApiKey(tx, actor.id) : null;
      return { creatorKind: "apikey", creatorId: actor.id, ownerKind: parent?.ownerKind ?? null, ownerUserId: parent?.ownerUserId ?? null };
    }
    case "local":
    case "system":
      return { creatorKind: "local", creatorId: null, ownerKind: "local", ownerUserId: null };
  }
}

function ownerOf(key: repo.KeyCreatorFields, users: Map<string, repo.KeyOwnerRecord>, createdBy: string): ApiKeyOwner {
  if (key.ownerKind === "local") return { kind: "local" };
  if (key.ownerKind !== "user" || !key.ownerUserId) return { kind: "unknown" };
  const user = users.get(key.ownerUserId);
  if (!user)
    return {
      kind: "user",
      userId: key.ownerUserId,
      label: key.creatorKind === "user" ? createdBy : "a deleted user",
      admin: false,
      gone: true,
    };
  return { kind: "user", userId: user.id, label: user.name || user.email, admin: user.role === "admin" && !user.disabledAt, gone: false };
}

function creatorOf(key: repo.ApiKeyRecord, users: Map<string, repo.KeyOwnerRecord>, keyNames: Map<string, string>): ApiKeyCreator {
  const owner = ownerOf(key, users, key.createdBy);
  if (key.creatorKind !== "apikey" || !key.creatorId) return owner;
  return { kind: "apikey", keyId: key.creatorId, name: keyNames.get(key.creatorId) ?? key.createdBy, owner };
}

export async function listApiKeys(db: DbOrTx): Promise<ApiKeyListItem[]> {
  const keys = await repo.listApiKeys(db);
  const names = await repo.playbookNamesById(db, [...new Set(keys.flatMap((key) => (key.allPlaybooks ? [] : key.playbookIds)))]);
  const users = await repo.usersById(db, [...new Set(keys.flatMap((key) => (key.ownerUserId ? [key.ownerUserId] : [])))]);
  const keyNames = await repo.keyNamesById(db, [
    ...new Set(keys.flatMap((key) => (key.creatorKind === "apikey" && key.creatorId ? [key.creatorId] : []))),
  ]);
  const now = new Date();
  return keys.map((key) => ({
    id: key.id,
    name: key.name,
    preview: key.preview,
    scopes: key.scopes.filter((scope): scope is ApiScope => (API_SCOPES as readonly string[]).includes(scope)),
    playbooks: key.allPlaybooks ? null : key.playbookIds.map((id) => ({ id, name: names.get(id) ?? null })),
    rateLimitPerMinute: key.rateLimitPerMinute,
    status: statusOf(key, now),
    expiresAt: key.expiresAt,
    revokedAt: key.revokedAt,
    revokedReason: key.revokedReason,
    lastUsedAt: key.lastUsedAt,
    createdBy: key.createdBy,
    creator: creatorOf(key, users, keyNames),
    createdAt: key.createdAt,
  }));
}

export async function revokeApiKey(db: Db, source: AuditSource, keyId: string): Promise<{ revokedAt: Date }> {
  const revoked = await db.$transaction(async (tx) => {
    const key = await repo.findApiKey(tx, keyId);
    if (!key) throw new AppError("NOT_FOUND", "That API key was not found. It may have been deleted.");
    if (key.revokedAt) return { revokedAt: key.revokedAt };
    const revokedAt = new Date();
    await repo.markRevoked(tx, keyId, revokedAt);
    await recordAudit(tx, source, {
      action: "apikey.revoke",
      target: { type: "apikey", id: key.id, label: key.name },
      before: { status: statusOf(key, revokedAt) },
      after: { status: "revoked" },
    });
    return { revokedAt };
  });
  // After the commit: a request that read the key before it would otherwise keep it for the TTL.
  forgetVerifiedKey(db, keyId);
  return revoked;
}

export type CreatorGoneReason = "creator disabled" | "creator deleted";

/**
 * Revokes every active key bound by this user, inside the transaction that disables or deletes
 * them (one audit entry per key, with the reason). The caller forgets the user's cached keys after
 * its commit (forgetVerifiedKeysOfUser).
 */
export async function revokeKeysOfUser(tx: Tx, source: AuditSource, userId: string, reason: CreatorGoneReason): Promise<number> {
  const keys = await repo.activeKeysOwnedBy(tx, userId);
  const revokedAt = new Date();
  for (const key of keys) {
    await repo.markRevoked(tx, key.id, revokedAt, reason);
    await recordAudit(tx, source, {
      action: "apikey.revoke",
      target: { type: "apikey", id: key.id, label: key.name },
      before: { status: statusOf(key, revokedAt) },
      after: { status: "revoked", reason },
    });
  }
  return keys.length;
}

/**
 * Hands a key to another admin, who becomes its creator: its admin powers then depend on them. For
 * service keys that must outlive a person, and keys whose creator is unknown.
 */
export async function transferApiKey(db: Db, source: AuditSource, raw: TransferApiKeyInput): Promise<{ creator: ApiKeyCreator }> {
  const input = transferApiKeyInput.parse(raw);
  const creator = await db.$transaction(async (tx) => {
    // Serialised with role changes, disabling and deleting, so the admin cannot stop being one halfway.
    await lockAccounts(tx);
    const key = await repo.findApiKey(tx, input.keyId);
    if (!key) throw new AppError("NOT_FOUND", "That API key was not found. It may have been deleted.");
    if (key.revokedAt) {
      throw new AppError("CONFLICT", `API key "${key.name}" is revoked, so there is nothing to transfer. Create a new key instead.`);
    }
    const user = await repo.findUser(tx, input.toUserId);
    if (!user) throw notFound("That user");
    if (user.disabledAt) throw new AppError("CONFLICT", `${user.email} is disabled. Transfer the key to an active admin.`);
    if (user.role !== "admin") {
      throw new AppError(
        "CONFLICT",
        `${user.email} is a ${user.role}; a key can only be transferred to an admin. Make them an admin first, or choose another.`,
      );
    }
    const users = await repo.usersById(tx, key.ownerUserId ? [key.ownerUserId] : []);
    const keyNames = await repo.keyNamesById(tx, key.creatorKind === "apikey" && key.creatorId ? [key.creatorId] : []);
    const before = creatorOf(key, users, keyNames);
    const fields: repo.KeyCreatorFields = { creatorKind: "user", creatorId: user.id, ownerKind: "user", ownerUserId: user.id };
    await repo.setCreator(tx, key.id, { ...fields, createdBy: user.email });
    const after = creatorOf({ ...key, ...fields }, new Map([[user.id, user]]), keyNames);
    await recordAudit(tx, source, {
      action: "apikey.transfer",
      target: { type: "apikey", id: key.id, label: key.name },
      before: { creator: creatorLabel(before), ownerUserId: key.ownerUserId },
      after: { creator: user.email, ownerUserId: user.id },
    });
    return after;
  });
  // Its admin powers now follow the new admin at once, here; other instances within VERIFIED_KEY_TTL_MS.
  forgetVerifiedKey(db, input.keyId);
  return { creator };
}

// ---- Checking a key -------------------------------------------------------------------------------

export type KeyCheck =
  | { ok: true; principal: Extract<Principal, { kind: "apikey" }>; rateLimitPerMinute: number | null }
  | { ok: false; message: string; key: { id: string; name: string } | null };

const NEW_KEY_HINT = "An admin creates keys in Settings → API keys, or with: npm run ace -- apikey create.";

export function bearerToken(headers: Headers): string | null {
  const header = headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : "";
}

// ---- Verified keys, kept a few seconds -------------------------------------------------------------

/**
 * A key that passed the check is kept in this process for VERIFIED_KEY_TTL_MS under the SHA-256 of
 * the whole presented token (never the token itself), so an agent's requests do not each read the
 * key and compute its HMAC. Bounds: a key revoked through this process is refused at once (revoking
 * drops its entries); revoked through another instance or the CLI, it is refused within
 * VERIFIED_KEY_TTL_MS. Expiry is checked on every request against the kept expiresAt, so an expired
 * key is refused at the second. Scopes and playbooks never widen (keys cannot be edited). The
 * creator's role and account are read with the key, so changing, disabling or deleting them drops
 * the creator's entries here at once (forgetVerifiedKeysOfUser), and holds on other instances
 * within VERIFIED_KEY_TTL_MS. Only successes are kept: a wrong or unknown token always reaches the
 * database, and the entries take at most VERIFIED_KEYS_MAX_BYTES.
 */
export const VERIFIED_KEY_TTL_MS = 5_000;
const VERIFIED_KEYS_MAX_BYTES = 1024 * 1024;

interface VerifiedKey {
  principal: Extract<Principal, { kind: "apikey" }>;
  rateLimitPerMinute: number | null;
  expiresAt: Date | null;
  /** The user whose role and account bound the key, if any. */
  ownerUserId: string | null;
}

const verifiedKeys = cachePerScope<DbOrTx, TtlCache<VerifiedKey>>(
  () =>
    new TtlCache<VerifiedKey>({
      ttlMs: VERIFIED_KEY_TTL_MS,
      maxBytes: VERIFIED_KEYS_MAX_BYTES,
      sizeOf: approximateBytes,
    }),
);

function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/**
 * Counts the forgets: a check that read a key before a forget must not keep what it read after it
 * (a revoke or demotion committed in between would otherwise be served from the cache for the TTL).
 */
let forgets = 0;

/** Drops this process's verified entries of a key (it was revoked or transferred here). */
export function forgetVerifiedKey(db: DbOrTx, keyId: string): void {
  forgets += 1;
  verifiedKeys(db).deleteWhere((entry) => entry.principal.keyId === keyId);
}

/** Drops this process's verified entries of every key bound by a user (their role or account changed here). */
export function forgetVerifiedKeysOfUser(db: DbOrTx, userId: string): void {
  forgets += 1;
  verifiedKeys(db).deleteWhere((entry) => entry.ownerUserId === userId);
}

function expiredMessage(name: string, expiresAt: Date): string {
  return `API key "${name}" expired on ${expiresAt.toISOString().slice(0, 10)}. Ask an admin for a new key.`;
}

/** The key a bearer token names, or why it cannot be used (a verified key is reused for a few seconds, see above). */
export async function checkApiKey(db: DbOrTx, token: string, settings: Pick<AuthSettings, "secret">): Promise<KeyCheck> {
  const cache = verifiedKeys(db);
  const digest = tokenDigest(token);
  const kept = cache.get(digest);
  if (kept) {
    if (kept.expiresAt && kept.expiresAt <= new Date()) {
      cache.delete(digest);
      const { keyId: id, name } = kept.principal;
      return { ok: false, key: { id, name }, message: expiredMessage(name, kept.expiresAt) };
    }
    return { ok: true, principal: kept.principal, rateLimitPerMinute: kept.rateLimitPerMinute };
  }
  const forgetsBefore = forgets;
  const check = await verifyApiKey(db, token, settings);
  if (check.ok && forgets === forgetsBefore) {
    const { principal, rateLimitPerMinute, expiresAt, ownerUserId } = check;
    cache.set(digest, { principal, rateLimitPerMinute, expiresAt, ownerUserId });
  }
  return check.ok ? { ok: true, principal: check.principal, rateLimitPerMinute: check.rateLimitPerMinute } : check;
}

async function verifyApiKey(
  db: DbOrTx,
  token: string,
  settings: Pick<AuthSettings, "secret">,
): Promise<Exclude<KeyCheck, { ok: true }> | (Extract<KeyCheck, { ok: true }> & { expiresAt: Date | null; ownerUserId: string | null })> {
  const match = KEY_PATTERN.exec(token);
  if (!match) {
    return {
      ok: false,
      key: null,
      message: `The Authorization header does not hold an ACE Studio API key (ace_…). Send Authorization: Bearer <key>. ${NEW_KEY_HINT}`,
    };
  }
  const [, publicId, secret] = match as unknown as [string, string, string];
  const key = await repo.findApiKeyByPublicId(db, publicId);
  const expected = key ? key.secretHash : keyedHash("no such key", secret);
  const given = keyedHash(await hmacKey(db, settings), secret);
  if (!key || !sameHash(given, expected)) {
    return { ok: false, key: null, message: `This API key is not valid: it may be mistyped, or it was deleted. ${NEW_KEY_HINT}` };
  }
  const ref = { id: key.id, name: key.name };
  if (key.revokedAt) {
    const why = key.revokedReason ? ` (${key.revokedReason}: keys end with their creator's account)` : "";
    return {
      ok: false,
      key: ref,
      message: `API key "${key.name}" was revoked on ${key.revokedAt.toISOString().slice(0, 10)}${why}. Use its replacement, or ask an admin for a new key.`,
    };
  }
  if (key.expiresAt && key.expiresAt <= new Date()) {
    return { ok: false, key: ref, message: expiredMessage(key.name, key.expiresAt) };
  }
  let scopes = key.scopes.filter((scope): scope is ApiScope => (API_SCOPES as readonly string[]).includes(scope));
  let adminWithheld: string | undefined;
  if (key.ownerKind === "user" && key.ownerUserId) {
    const owner = await repo.findUser(db, key.ownerUserId);
    // Disabling or deleting revokes the creator's keys; this also covers a key made in the same moment.
    if (!owner || owner.disabledAt) {
      return {
        ok: false,
        key: ref,
        message: `API key "${key.name}" ended with the account of the person who created it (${owner ? "disabled" : "deleted"}). Ask an admin for a new key.`,
      };
    }
    if (owner.role !== "admin" && scopes.includes("admin")) {
      scopes = scopes.filter((scope) => scope !== "admin");
      adminWithheld =
        `API key "${key.name}" acts for ${owner.email}, who is no longer an admin, so its admin scope is withheld. ` +
        `An admin can transfer the key to another admin in Settings → API keys, or create a new one.`;
    }
  }
  return {
    ok: true,
    rateLimitPerMinute: key.rateLimitPerMinute,
    expiresAt: key.expiresAt,
    ownerUserId: key.ownerKind === "user" ? key.ownerUserId : null,
    principal: {
      kind: "apikey",
      keyId: key.id,
      name: key.name,
      scopes,
      playbookIds: key.allPlaybooks ? "all" : key.playbookIds,
      ...(adminWithheld ? { adminWithheld } : {}),
    },
  };
}

export async function noteKeyUsed(db: DbOrTx, keyId: string): Promise<void> {
  await repo.markUsed(db, keyId, new Date());
}
