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

/**
 * A lease: requests of one key this instance has already counted in the shared window and may admit
 * without writing. Taking a lease adds its size to the key's counter in one statement, so the
 * counter never trails what instances admit: no more than the limit is admitted per window across
 * any number of instances. The price is the other way round: requests leased by one instance and
 * not used by the end of the window are lost to the others, at most (instances - 1) x leaseSize per
 * window (leaseSize is 2% of the limit, at most 100), and a lease taken just before the window
 * ends runs out with it. A limit under 50 a minute leases one request at a time (one write per
 * request, exact as before).
 */
interface Lease {
  perMinute: number;
  remaining: number;
  /** This process's clock; the window's end as the database saw it, less the round trip. */
  windowEndsAt: number;
  /** The lease opened the window: the key's first request this minute (lastUsedAt is written). */
  first: boolean;
  /** The counter reached the limit: refuse until the window ends instead of asking again. */
  exhausted: boolean;
}

interface LeaseSlot {
  lease: Lease | null;
  taking: Promise<Lease> | null;
}

const LEASE_SHARE = 0.02;
const LEASE_MAX = 100;

export function leaseSize(perMinute: number): number {
  return Math.max(1, Math.min(LEASE_MAX, Math.floor(perMinute * LEASE_SHARE)));
}

const leasesByDb = new WeakMap<object, Map<string, LeaseSlot>>();

function slotOf(db: DbOrTx, keyId: string): LeaseSlot {
  let leases = leasesByDb.get(db);
  if (!leases) {
    leases = new Map();
    leasesByDb.set(db, leases);
  }
  let slot = leases.get(keyId);
  if (!slot) {
    slot = { lease: null, taking: null };
    leases.set(keyId, slot);
  }
  return slot;
}

async function takeLease(db: DbOrTx, keyId: string, perMinute: number): Promise<Lease> {
  const size = leaseSize(perMinute);
  const { count, retryAfterMs } = await repo.hitRateLimit(db, `api-key:${keyId}`, API_WINDOW_MS, size);
  const before = count - size;
  const granted = Math.max(0, Math.min(size, perMinute - before));
  return { perMinute, remaining: granted, windowEndsAt: Date.now() + retryAfterMs, first: before === 0, exhausted: granted < size };
}

/** Counts one request of an API key; refused once the key's per-minute limit is used up (see Lease). */
export async function hitApiKeyLimit(
  db: DbOrTx,
  keyId: string,
  perMinute: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number; first: boolean }> {
  const slot = slotOf(db, keyId);
  for (let attempt = 0; ; attempt += 1) {
    const lease = slot.lease;
    const now = Date.now();
    const current = lease !== null && lease.perMinute === perMinute && now < lease.windowEndsAt;
    // A window that ends while its lease is taken answers from that lease rather than loop.
    if (lease && (current || attempt >= 2) && (lease.remaining > 0 || lease.exhausted || attempt >= 2)) {
      const retryAfterSeconds = Math.max(1, Math.ceil((lease.windowEndsAt - now) / 1000));
      if (lease.remaining === 0) return { allowed: false, retryAfterSeconds, first: false };
      lease.remaining -= 1;
      const first = lease.first;
      lease.first = false;
      return { allowed: true, retryAfterSeconds, first };
    }
    // One lease taken at a time per key: concurrent requests wait for it instead of each writing.
    slot.taking ??= takeLease(db, keyId, perMinute).finally(() => {
      slot.taking = null;
    });
    slot.lease = await slot.taking;
  }
}

/** True at most once per window per key: keeps repeated refusals from flooding the audit log. */
export async function firstInWindow(db: DbOrTx, key: string, windowMs = 60_000): Promise<boolean> {
  return (await repo.hitRateLimit(db, `once:${key}`, windowMs)).count === 1;
}

export async function deleteStaleCounters(db: DbOrTx, now: Date): Promise<number> {
  return repo.deleteStaleRateLimits(db, new Date(now.getTime() - 24 * 60 * 60_000));
}
