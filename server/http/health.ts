// GET /api/v1/health: whether this instance can serve, for load balancers and orchestrators (a
// readiness check). It answers without a key, so it says no more than that: the database's state
// and this process's uptime, never a version, a setting or an error's text (those go to the log).
import { getDb } from "@/server/db/client";
import { checkDatabase, type DatabaseCheck } from "@/server/db/health";
import { storageFullSince } from "@/server/errors/storage-full";
import { HEALTH_REUSE_MS, HEALTH_TIMEOUT_MS, type Health, type PublicCheck, type StorageCheck } from "./health-schema";

/** A failing database is logged at most this often, however often it is probed. */
const LOG_EVERY_MS = 60_000;

let last: { at: number; check: Promise<PublicCheck> } | undefined;
let lastLoggedAt = Number.NEGATIVE_INFINITY;
/** Whether the last check failed: the first success after failures is logged too. */
let failing = false;

async function databaseCheck(timeoutMs: number): Promise<PublicCheck> {
  let check: DatabaseCheck;
  try {
    check = await checkDatabase(await getDb(), { timeoutMs });
  } catch (error) {
    check = { status: "failed", reason: "The database could not be opened; the server's log has the error.", error };
  }
  if (check.status === "ok") {
    if (failing) console.log("[ace-studio] health check: the database answers again");
    failing = false;
    return check;
  }
  failing = true;
  if (Date.now() - lastLoggedAt >= LOG_EVERY_MS) {
    lastLoggedAt = Date.now();
    console.error(`[ace-studio] health check: ${check.reason}`, ...(check.error === undefined ? [] : [check.error]));
  }
  return { status: "failed", reason: check.reason };
}

/** A read answers nothing about free space; a failed write does, so the check remembers the last one. */
function storageCheck(): StorageCheck {
  const since = storageFullSince();
  if (!since) return { status: "ok" };
  return {
    status: "full",
    reason: "Writes failed because the database's disk is full. Free disk space where the database keeps its files.",
    since: since.toISOString(),
  };
}

/**
 * This instance's health. Probes arriving together share one database check, and a check under a
 * second old answers them too.
 */
export async function instanceHealth({ timeoutMs = HEALTH_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<Health> {
  const now = Date.now();
  if (!last || now - last.at >= HEALTH_REUSE_MS) last = { at: now, check: databaseCheck(timeoutMs) };
  const database = await last.check;
  const storage = storageCheck();
  return {
    status: database.status !== "ok" ? "unavailable" : storage.status === "full" ? "degraded" : "ok",
    checks: { database, storage },
    uptimeSeconds: Math.floor(process.uptime()),
  };
}

/**
 * Forgets the last check (tests that change the database between probes), and when a failure was
 * last logged unless `keepLogClock`.
 */
export function forgetHealth({ keepLogClock = false }: { keepLogClock?: boolean } = {}): void {
  last = undefined;
  if (!keepLogClock) {
    lastLoggedAt = Number.NEGATIVE_INFINITY;
    failing = false;
  }
}
