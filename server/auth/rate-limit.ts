// Limits kept in the database (so several app instances share them): failed sign-ins per account
// and per address, and requests per API key.
import { plural } from "@/server/ace/text/format";
import type { DbOrTx } from "@/server/db/client";
import * as repo from "./repository";

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins an account may have in a window before it is locked until the window ends. */
export const SIGN_IN_FAILURES_PER_ACCOUNT = 5;
/** Failed sign-ins (any accounts) one address may make in a window. */
export const SIGN_IN_FAILURES_PER_ADDRESS = 30;

export interface Lockout {
  retryAfterSeconds: number;
  message: string;
}

const accountKey = (email: string) => `sign-in:account:${email}`;
const addressKey = (ip: string) => `sign-in:ip:${ip}`;

function inMinutes(ms: number): string {
  return plural(Math.max(1, Math.ceil(ms / 60_000)), "minute");
}

/** Refuses before the password is even checked while the account or the address is locked out. */
export async function signInLockout(db: DbOrTx, email: string, ip: string | null): Promise<Lockout | null> {
  const account = await repo.peekRateLimit(db, accountKey(email), SIGN_IN_WINDOW_MS);
  if (account.count >= SIGN_IN_FAILURES_PER_ACCOUNT) {
    return {
      retryAfterSeconds: Math.ceil(account.retryAfterMs / 1000),
      message: `Too many failed sign-ins for this account. Try again in ${inMinutes(account.retryAfterMs)}, or ask an admin for a new invite link to set a new password.`,
    };
  }
  if (ip) {
    const address = await repo.peekRateLimit(db, addressKey(ip), SIGN_IN_WINDOW_MS);
    if (address.count >= SIGN_IN_FAILURES_PER_ADDRESS) {
      return {
        retryAfterSeconds: Math.ceil(address.retryAfterMs / 1000),
        message: `Too many failed sign-ins from your network address. Try again in ${inMinutes(address.retryAfterMs)}.`,
      };
    }
  }
  return null;
}

export async function countFailedSignIn(db: DbOrTx, email: string, ip: string | null): Promise<void> {
  await repo.hitRateLimit(db, accountKey(email), SIGN_IN_WINDOW_MS);
  if (ip) await repo.hitRateLimit(db, addressKey(ip), SIGN_IN_WINDOW_MS);
}

/** A successful sign-in clears the account's failures (not the address's). */
export async function clearFailedSignIns(db: DbOrTx, email: string): Promise<void> {
  await repo.clearRateLimit(db, accountKey(email));
}

export const API_WINDOW_MS = 60_000;

/** Counts one request of an API key; refused once the key's per-minute limit is used up. */
export async function hitApiKeyLimit(
  db: DbOrTx,
  keyId: string,
  perMinute: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number; first: boolean }> {
  const { count, retryAfterMs } = await repo.hitRateLimit(db, `api-key:${keyId}`, API_WINDOW_MS);
  return { allowed: count <= perMinute, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)), first: count === 1 };
}

/** True at most once per window per key: keeps repeated refusals from flooding the audit log. */
export async function firstInWindow(db: DbOrTx, key: string, windowMs = 60_000): Promise<boolean> {
  return (await repo.hitRateLimit(db, `once:${key}`, windowMs)).count === 1;
}

export async function deleteStaleCounters(db: DbOrTx, now: Date): Promise<number> {
  return repo.deleteStaleRateLimits(db, new Date(now.getTime() - 24 * 60 * 60_000));
}
