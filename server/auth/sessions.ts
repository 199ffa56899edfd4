// Database sessions (the pattern Lucia's authors now teach, on @oslojs): a random token in an
// HttpOnly cookie, its SHA-256 as the row's id, a sliding expiry, and revocation by deleting rows.
import type { DbOrTx } from "@/server/db/client";
import type { AuthSettings } from "./config";
import type { Principal } from "./principal";
import * as repo from "./repository";
import type { RequestInfo } from "./request";
import { newToken, tokenHash } from "./tokens";

const DAY_MS = 24 * 60 * 60_000;
/** lastSeenAt is written at most this often per session (not on every request). */
const TOUCH_EVERY_MS = 5 * 60_000;

export interface NewSession {
  token: string;
  id: string;
  expiresAt: Date;
}

export async function startSession(
  db: DbOrTx,
  userId: string,
  request: RequestInfo,
  settings: Pick<AuthSettings, "sessionDays">,
): Promise<NewSession> {
  const token = newToken();
  const id = tokenHash(token);
  const expiresAt = new Date(Date.now() + settings.sessionDays * DAY_MS);
  await repo.createSession(db, { id, userId, expiresAt, ip: request.ip, userAgent: request.userAgent });
  return { token, id, expiresAt };
}

export interface ValidSession {
  principal: Extract<Principal, { kind: "user" }>;
  /** Set when the expiry moved forward: the cookie should be sent again with it. */
  extendedTo: Date | null;
}

/**
 * The user of a session token, or null when the session does not exist, has expired or belongs to
 * a disabled user. A session used in the second half of its life is extended to a full one.
 */
export async function validateSession(
  db: DbOrTx,
  token: string,
  settings: Pick<AuthSettings, "sessionDays">,
): Promise<ValidSession | null> {
  const id = tokenHash(token);
  const session = await repo.findSession(db, id);
  if (!session) return null;
  const now = Date.now();
  if (session.expiresAt.getTime() <= now) {
    await repo.deleteSession(db, id);
    return null;
  }
  const user = session.user;
  if (user.disabledAt || !user.passwordHash) return null;
  const lifetime = settings.sessionDays * DAY_MS;
  const extend = session.expiresAt.getTime() - now < lifetime / 2;
  const extendedTo = extend ? new Date(now + lifetime) : null;
  if (extend || now - session.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await repo.touchSession(db, id, { lastSeenAt: new Date(now), ...(extendedTo ? { expiresAt: extendedTo } : {}) });
  }
  return {
    principal: { kind: "user", userId: user.id, email: user.email, name: user.name, role: user.role, sessionId: id },
    extendedTo,
  };
}
