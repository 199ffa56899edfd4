// A full disk, recognised in whatever the database layer throws (pg's and PGlite's errors, as
// they are or wrapped by Prisma's driver adapters; Node's ENOSPC), and remembered for the health
// check: this process cannot watch the database's disk, but it sees every write that failed on it.
import { AppError } from "./app-error";

/** PostgreSQL's SQLSTATE disk_full ("could not extend file …: No space left on device"). */
export const DISK_FULL_SQLSTATE = "53100";

/** How long after the last disk-full error the health check says "degraded". */
export const STORAGE_FULL_WINDOW_MS = 10 * 60_000;

export const STORAGE_FULL_MESSAGE =
  "The database's disk is full, so nothing was stored. Free disk space where the database keeps its files (the data folder, or the PostgreSQL server), then send this again.";

const FULL_TEXT = /could not extend file|no space left on device|\bENOSPC\b/i;
// Where the drivers and Prisma keep the original error: cause (pg, Node), meta.driverAdapterError
// and its cause (Prisma 7 with a driver adapter), originalCode/originalMessage (the adapters).
const NESTED = ["cause", "meta", "driverAdapterError", "error", "originalError"] as const;

function looksFull(value: Record<string, unknown>): boolean {
  for (const key of ["code", "originalCode", "sqlState", "errno"]) {
    const code = value[key];
    if (code === DISK_FULL_SQLSTATE || code === "ENOSPC") return true;
  }
  return ["message", "originalMessage"].some((key) => typeof value[key] === "string" && FULL_TEXT.test(value[key]));
}

/** Whether the error, or one it wraps, says the disk is full. */
export function isStorageFull(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 32) {
    const current = queue.shift();
    if (typeof current !== "object" || current === null || seen.has(current)) continue;
    seen.add(current);
    const value = current as Record<string, unknown>;
    if (looksFull(value)) return true;
    for (const key of NESTED) queue.push(value[key]);
  }
  return false;
}

let lastFullAt: number | null = null;

/** The 507 a full disk answers, noting when it happened for the health check. */
export function storageFullError(cause: unknown): AppError {
  lastFullAt = Date.now();
  return new AppError("STORAGE_FULL", STORAGE_FULL_MESSAGE, { cause });
}

/** When a write last failed on a full disk, if within the window; else null. */
export function storageFullSince(now = Date.now()): Date | null {
  return lastFullAt !== null && now - lastFullAt < STORAGE_FULL_WINDOW_MS ? new Date(lastFullAt) : null;
}

/** Forgets the last disk-full error (tests). */
export function forgetStorageFull(): void {
  lastFullAt = null;
}
