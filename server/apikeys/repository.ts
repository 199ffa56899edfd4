// Every database call of API keys, and the playbook and user lookups the key checks need.
import type { DbOrTx } from "@/server/db/client";

const keyFields = {
  id: true,
  publicId: true,
  secretHash: true,
  name: true,
  preview: true,
  scopes: true,
  allPlaybooks: true,
  playbookIds: true,
  rateLimitPerMinute: true,
  expiresAt: true,
  revokedAt: true,
  revokedReason: true,
  lastUsedAt: true,
  createdBy: true,
  creatorKind: true,
  creatorId: true,
  ownerKind: true,
  ownerUserId: true,
  createdAt: true,
} as const;

export type ApiKeyRecord = {
  id: string;
  publicId: string;
  secretHash: string;
  name: string;
  preview: string;
  scopes: string[];
  allPlaybooks: boolean;
  playbookIds: string[];
  rateLimitPerMinute: number | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
  lastUsedAt: Date | null;
  createdBy: string;
  creatorKind: string | null;
  creatorId: string | null;
  ownerKind: string | null;
  ownerUserId: string | null;
  createdAt: Date;
};

/** Who created a key and whose rights bound it (see ApiKey in prisma/schema.prisma). */
export type KeyCreatorFields = Pick<ApiKeyRecord, "creatorKind" | "creatorId" | "ownerKind" | "ownerUserId">;

export function insertApiKey(
  tx: DbOrTx,
  data: Omit<ApiKeyRecord, "id" | "revokedAt" | "revokedReason" | "lastUsedAt" | "createdAt">,
): Promise<ApiKeyRecord> {
  return tx.apiKey.create({ data, select: keyFields });
}

export function findApiKeyByPublicId(db: DbOrTx, publicId: string): Promise<ApiKeyRecord | null> {
  return db.apiKey.findUnique({ where: { publicId }, select: keyFields });
}

export function findApiKey(db: DbOrTx, id: string): Promise<ApiKeyRecord | null> {
  return db.apiKey.findUnique({ where: { id }, select: keyFields });
}

export function listApiKeys(db: DbOrTx): Promise<ApiKeyRecord[]> {
  return db.apiKey.findMany({ orderBy: [{ revokedAt: { sort: "desc", nulls: "first" } }, { createdAt: "desc" }], select: keyFields });
}

export async function markRevoked(tx: DbOrTx, id: string, at: Date, reason: string | null = null): Promise<void> {
  await tx.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at, revokedReason: reason } });
}

/** The active keys whose admin powers depend on this user (made by them, or by a key of theirs). */
export function activeKeysOwnedBy(tx: DbOrTx, userId: string): Promise<ApiKeyRecord[]> {
  return tx.apiKey.findMany({ where: { ownerUserId: userId, revokedAt: null }, orderBy: { createdAt: "asc" }, select: keyFields });
}

export async function setCreator(tx: DbOrTx, id: string, creator: KeyCreatorFields & { createdBy: string }): Promise<void> {
  await tx.apiKey.update({ where: { id }, data: creator, select: { id: true } });
}

export async function markUsed(db: DbOrTx, id: string, at: Date): Promise<void> {
  await db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: at } });
}

export async function playbookNamesById(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.playbook.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } });
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function playbookIdsByName(db: DbOrTx, names: readonly string[]): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const rows = await db.playbook.findMany({ where: { name: { in: [...names] } }, select: { id: true, name: true } });
  return new Map(rows.map((row) => [row.name, row.id]));
}

export type KeyOwnerRecord = { id: string; email: string; name: string; role: string; disabledAt: Date | null };

export async function usersById(db: DbOrTx, ids: readonly string[]): Promise<Map<string, KeyOwnerRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await db.user.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, email: true, name: true, role: true, disabledAt: true },
  });
  return new Map(rows.map((row) => [row.id, row]));
}

export function findUser(db: DbOrTx, id: string): Promise<KeyOwnerRecord | null> {
  return db.user.findUnique({ where: { id }, select: { id: true, email: true, name: true, role: true, disabledAt: true } });
}

/** Names of keys by id (the keys that made other keys). */
export async function keyNamesById(db: DbOrTx, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.apiKey.findMany({ where: { id: { in: [...ids] } }, select: { id: true, name: true } });
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The stored value under `key`, inserting `candidate` first when there is none (several instances agree on one). */
export async function readOrInsertAppSetting(db: DbOrTx, key: string, candidate: string): Promise<string> {
  await db.appSetting.createMany({ data: [{ key, value: candidate }], skipDuplicates: true });
  const row = await db.appSetting.findUnique({ where: { key }, select: { value: true } });
  return typeof row?.value === "string" ? row.value : candidate;
}
