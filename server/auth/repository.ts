// Every database call of accounts: users, sessions, invites, setup tokens, rate-limit counters and
// the server's key for API key hashes.
import type { DbOrTx, Tx } from "@/server/db/client";
import type { Role } from "./schemas";

// ---- Users ---------------------------------------------------------------------------------------

const userFields = { id: true, email: true, name: true, role: true, passwordHash: true, disabledAt: true } as const;

export type UserRecord = { id: string; email: string; name: string; role: Role; passwordHash: string | null; disabledAt: Date | null };

export async function anyUserExists(db: DbOrTx): Promise<boolean> {
  return (await db.user.findFirst({ select: { id: true } })) !== null;
}

export function findUserByEmail(db: DbOrTx, email: string): Promise<UserRecord | null> {
  return db.user.findUnique({ where: { email }, select: userFields });
}

export function findUserById(db: DbOrTx, id: string): Promise<UserRecord | null> {
  return db.user.findUnique({ where: { id }, select: userFields });
}

export function createUser(
  tx: DbOrTx,
  data: { email: string; name: string; role: Role; passwordHash: string | null },
): Promise<UserRecord> {
  return tx.user.create({ data, select: userFields });
}

export function updateUser(
  tx: DbOrTx,
  id: string,
  data: Partial<{ name: string; role: Role; passwordHash: string | null; disabledAt: Date | null; lastSignInAt: Date }>,
): Promise<UserRecord> {
  return tx.user.update({ where: { id }, data, select: userFields });
}

export async function deleteUser(tx: DbOrTx, id: string): Promise<void> {
  await tx.user.delete({ where: { id } });
}

/** Admins who can still sign in (not disabled), other than `except`. */
export function countActiveAdmins(tx: DbOrTx, except?: string): Promise<number> {
  return tx.user.count({ where: { role: "admin", disabledAt: null, ...(except ? { id: { not: except } } : {}) } });
}

export async function listUsers(db: DbOrTx, now: Date) {
  const users = await db.user.findMany({
    orderBy: [{ createdAt: "asc" }],
    select: {
      ...userFields,
      lastSignInAt: true,
      createdAt: true,
      invites: { where: { expiresAt: { gt: now } }, select: { expiresAt: true }, orderBy: { expiresAt: "desc" }, take: 1 },
      _count: { select: { sessions: { where: { expiresAt: { gt: now } } } } },
    },
  });
  return users.map(({ invites, _count, passwordHash, disabledAt, ...user }) => ({
    ...user,
    disabled: disabledAt !== null,
    hasPassword: passwordHash !== null,
    pendingInviteExpiresAt: invites[0]?.expiresAt ?? null,
    activeSessions: _count.sessions,
  }));
}

/** Serialises account changes that check a count first (the first admin, the last admin). */
export async function lockAccounts(tx: Tx): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('ace-studio:accounts'))`;
}

// ---- Sessions ------------------------------------------------------------------------------------

export async function createSession(
  db: DbOrTx,
  data: { id: string; userId: string; expiresAt: Date; ip: string | null; userAgent: string | null },
): Promise<void> {
  await db.session.create({ data, select: { id: true } });
}

export function findSession(db: DbOrTx, id: string) {
  return db.session.findUnique({
    where: { id },
    select: { id: true, expiresAt: true, lastSeenAt: true, user: { select: userFields } },
  });
}

export async function touchSession(db: DbOrTx, id: string, data: { lastSeenAt: Date; expiresAt?: Date }): Promise<void> {
  await db.session.updateMany({ where: { id }, data });
}

export async function deleteSession(db: DbOrTx, id: string): Promise<number> {
  return (await db.session.deleteMany({ where: { id } })).count;
}

/** Ends every session of a user, but `except` (the one making the change). */
export async function deleteSessionsOfUser(db: DbOrTx, userId: string, except?: string): Promise<number> {
  return (await db.session.deleteMany({ where: { userId, ...(except ? { id: { not: except } } : {}) } })).count;
}

export function listSessionsOfUser(db: DbOrTx, userId: string, now: Date) {
  return db.session.findMany({
    where: { userId, expiresAt: { gt: now } },
    orderBy: { lastSeenAt: "desc" },
    select: { id: true, createdAt: true, lastSeenAt: true, expiresAt: true, ip: true, userAgent: true },
  });
}

export async function deleteSessionOfUser(db: DbOrTx, userId: string, id: string): Promise<number> {
  return (await db.session.deleteMany({ where: { id, userId } })).count;
}

export async function deleteExpiredSessions(db: DbOrTx, now: Date): Promise<number> {
  return (await db.session.deleteMany({ where: { expiresAt: { lte: now } } })).count;
}

// ---- Invites -------------------------------------------------------------------------------------

export async function replaceInvite(tx: DbOrTx, data: { id: string; userId: string; expiresAt: Date; createdBy: string }): Promise<void> {
  await tx.invite.deleteMany({ where: { userId: data.userId } });
  await tx.invite.create({ data, select: { id: true } });
}

export function findInvite(db: DbOrTx, id: string) {
  return db.invite.findUnique({ where: { id }, select: { id: true, expiresAt: true, user: { select: userFields } } });
}

/** Takes an invite: true when this call deleted it (so two tabs cannot both use one link). */
export async function takeInvite(tx: DbOrTx, id: string): Promise<boolean> {
  return (await tx.invite.deleteMany({ where: { id } })).count === 1;
}

// ---- Setup tokens --------------------------------------------------------------------------------

export async function addSetupToken(db: DbOrTx, id: string): Promise<void> {
  await db.setupToken.upsert({ where: { id }, create: { id }, update: {}, select: { id: true } });
}

export async function setupTokenExists(db: DbOrTx, id: string): Promise<boolean> {
  return (await db.setupToken.findUnique({ where: { id }, select: { id: true } })) !== null;
}

export async function deleteAllSetupTokens(tx: DbOrTx): Promise<void> {
  await tx.setupToken.deleteMany({});
}

// ---- Rate limits ---------------------------------------------------------------------------------

/**
 * Counts one event under `key` in a fixed window of `windowMs`, on the database's clock so that
 * every app instance agrees. One statement: concurrent hits never lose a count.
 */
/** Counts `amount` hits (one by default) in the key's window; the count returned includes them. */
export async function hitRateLimit(
  db: DbOrTx,
  key: string,
  windowMs: number,
  amount = 1,
): Promise<{ count: number; retryAfterMs: number }> {
  const rows = await db.$queryRaw<{ count: number; retry_after_ms: number }[]>`
    INSERT INTO "RateLimit" ("key", "windowStart", "count") VALUES (${key}, now(), ${amount}::int)
    ON CONFLICT ("key") DO UPDATE SET
      "count" = CASE WHEN "RateLimit"."windowStart" <= now() - make_interval(secs => ${windowMs / 1000}::float8)
                     THEN ${amount}::int ELSE "RateLimit"."count" + ${amount}::int END,
      "windowStart" = CASE WHEN "RateLimit"."windowStart" <= now() - make_interval(secs => ${windowMs / 1000}::float8)
                     THEN now() ELSE "RateLimit"."windowStart" END
    RETURNING "count",
      GREATEST(0, CEIL(EXTRACT(EPOCH FROM ("windowStart" + make_interval(secs => ${windowMs / 1000}::float8) - now())) * 1000))::float8 AS retry_after_ms`;
  const row = rows[0];
  return { count: Number(row?.count ?? amount), retryAfterMs: Number(row?.retry_after_ms ?? windowMs) };
}

/** The count in the current window (0 when the window has passed), without counting. */
export async function peekRateLimit(db: DbOrTx, key: string, windowMs: number): Promise<{ count: number; retryAfterMs: number }> {
  const rows = await db.$queryRaw<{ count: number; retry_after_ms: number }[]>`
    SELECT "count",
      GREATEST(0, CEIL(EXTRACT(EPOCH FROM ("windowStart" + make_interval(secs => ${windowMs / 1000}::float8) - now())) * 1000))::float8 AS retry_after_ms
    FROM "RateLimit"
    WHERE "key" = ${key} AND "windowStart" > now() - make_interval(secs => ${windowMs / 1000}::float8)`;
  const row = rows[0];
  return row ? { count: Number(row.count), retryAfterMs: Number(row.retry_after_ms) } : { count: 0, retryAfterMs: 0 };
}

export async function clearRateLimit(db: DbOrTx, key: string): Promise<void> {
  await db.rateLimit.deleteMany({ where: { key } });
}

export async function deleteStaleRateLimits(db: DbOrTx, before: Date): Promise<number> {
  return (await db.rateLimit.deleteMany({ where: { windowStart: { lt: before } } })).count;
}
