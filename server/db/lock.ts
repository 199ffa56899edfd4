// Ownership of an embedded (PGlite) data folder: one process at a time. The owner writes
// <dataDir>/ace-studio.lock and removes it on exit; a lock whose process is gone is stale.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const LOCK_FILE_NAME = "ace-studio.lock";

export type LockInfo = {
  pid: number;
  /** ISO time the owner took the lock. */
  startedAt: string;
  /** Where the owner can be reached, e.g. the web server's http://localhost:3000. */
  url?: string;
};

export class DatabaseBusyError extends Error {
  override name = "DatabaseBusyError";
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo,
  ) {
    const where = holder.url ? ` (serving ${holder.url})` : "";
    super(
      `The embedded database in ${dataDir} is in use by another process: pid ${holder.pid}${where}, ` +
        `since ${holder.startedAt}. Only one process can open it at a time. ` +
        `Stop that process (e.g. the running ACE Studio server) and try again, ` +
        `or point DATA_DIR at another folder (or set DATABASE_URL to use PostgreSQL). ` +
        `If no such process is running ACE Studio, delete ${lockPath(dataDir)}.`,
    );
  }
}

export function lockPath(dataDir: string): string {
  return join(resolve(dataDir), LOCK_FILE_NAME);
}

/** Whether a process with this pid exists (used for stale locks and stale temp folders). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLock(file: string): LockInfo | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text) as Partial<LockInfo>;
    if (typeof value.pid !== "number" || !Number.isInteger(value.pid) || value.pid <= 0) return null;
    return {
      pid: value.pid,
      startedAt: typeof value.startedAt === "string" ? value.startedAt : "an unknown time",
      ...(typeof value.url === "string" ? { url: value.url } : {}),
    };
  } catch {
    return null; // half-written or garbage: treated as stale
  }
}

/** The lock of the folder when its owner is alive (it may be this process), else null. */
export function readLiveLock(dataDir: string): LockInfo | null {
  const lock = readLock(lockPath(dataDir));
  return lock && isProcessAlive(lock.pid) ? lock : null;
}

// Locks this process holds, by lock file path. Kept on globalThis so that a second copy of this
// module (Next.js can load one module more than once) sees the same set.
type LockState = { held: Map<string, LockInfo>; exitHookInstalled: boolean };
const globalForLock = globalThis as typeof globalThis & { __aceStudioLocks?: LockState };
const state: LockState = (globalForLock.__aceStudioLocks ??= { held: new Map(), exitHookInstalled: false });

function installExitHook() {
  if (state.exitHookInstalled) return;
  state.exitHookInstalled = true;
  process.on("exit", () => {
    for (const file of state.held.keys()) removeIfOurs(file);
  });
}

function removeIfOurs(file: string) {
  const current = readLock(file);
  if (current && current.pid !== process.pid) return; // taken over by someone else: leave it
  rmSync(file, { force: true });
}

/**
 * Takes the lock of an embedded data folder for this process (creating the folder).
 * Throws DatabaseBusyError when another live process holds it. Taking it twice in one process is
 * fine; the returned function releases it.
 */
export function acquireLock(dataDir: string): () => void {
  const file = lockPath(dataDir);
  mkdirSync(resolve(dataDir), { recursive: true });
  const mine: LockInfo = { pid: process.pid, startedAt: new Date().toISOString() };

  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      writeFileSync(file, JSON.stringify(mine, null, 2) + "\n", { flag: "wx" });
      state.held.set(file, mine);
      installExitHook();
      return () => releaseLock(dataDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const existing = readLock(file);
    if (existing && existing.pid === process.pid) {
      state.held.set(file, existing);
      installExitHook();
      return () => releaseLock(dataDir);
    }
    if (existing && isProcessAlive(existing.pid)) throw new DatabaseBusyError(resolve(dataDir), existing);
    // Stale (dead pid or unreadable): remove and race for it again. If the file is being written
    // right now by a starting owner, the next round reads it complete.
    if (!existing && attempt === 0) {
      sleepSync(50);
      continue;
    }
    rmSync(file, { force: true });
  }
  throw new Error(`Could not take the lock ${file}: it keeps changing. Is another process starting on the same DATA_DIR?`);
}

export function releaseLock(dataDir: string): void {
  const file = lockPath(dataDir);
  if (!state.held.delete(file)) return;
  removeIfOurs(file);
}

/** Records where this process can be reached in every lock it holds (the web server calls this). */
export function setLockUrl(url: string): void {
  for (const [file, info] of state.held) {
    const updated = { ...info, url };
    state.held.set(file, updated);
    // Write then rename, so a reader never sees a half-written lock.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(updated, null, 2) + "\n");
    renameSync(tmp, file);
  }
}

function sleepSync(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
