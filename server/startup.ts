// What the web server does once when it starts (called from instrumentation.ts): open and
// migrate the database, seed the demo on a first embedded run, tell the CLI where we listen.
import { announceAuth, prepareAuth } from "@/server/auth/startup";
import { ConfigError, getEnv, type DemoSeedSetting } from "@/server/config/env";
import { cacheHeapWarning } from "@/server/config/heap";
import { describeDatabase } from "@/server/db/config";
import { getDb } from "@/server/db/client";
import { DatabaseBusyError, setLockUrl } from "@/server/db/lock";
import { backfillVersionFigures } from "@/server/metrics/figures";
import { seedDemoPlaybooks } from "@/server/playbooks/seed";
import { startRunWorker } from "@/server/runs/worker";

/** ACE_DEMO_SEED: "auto" (default: seed an empty embedded database), "always" (any empty database), "off". */
function shouldSeed(setting: DemoSeedSetting, kind: "pglite" | "postgres"): boolean {
  if (setting === "off") return false;
  return setting === "always" || kind === "pglite";
}

/**
 * Says why the server could not start and ends the process with status 1. A known cause (the
 * database in use by another process, a bad setting) is one message; anything else its stack.
 */
export function stopOnStartFailure(error: unknown): never {
  const known = error instanceof DatabaseBusyError || error instanceof ConfigError;
  console.error(
    `[ace-studio] could not start: ${known ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  console.error("[ace-studio] stopping.");
  process.exit(1);
}

export async function startServer(): Promise<void> {
  // Every setting is checked here, before anything opens: a bad one stops the start with its name.
  const env = getEnv();
  const heapWarning = cacheHeapWarning(env.cacheBytes);
  if (heapWarning) console.warn(`[ace-studio] warning: ${heapWarning}`);
  const auth = await prepareAuth(env.port);
  const config = env.database;
  const started = Date.now();
  const db = await getDb();
  console.log(`[ace-studio] database ready: ${describeDatabase(config)} (${Date.now() - started} ms)`);
  if (config.kind === "pglite") setLockUrl(`http://127.0.0.1:${env.port}`);
  await announceAuth(db, `http://127.0.0.1:${env.port}`, auth);
  if (shouldSeed(env.demoSeed, config.kind)) {
    const seeded = await seedDemoPlaybooks(db);
    if (seeded.length > 0) console.log(`[ace-studio] first run: seeded ${seeded.join(", ")}`);
  }
  // Once: figures for versions written before they were stored (a no-op when none is missing).
  try {
    const filled = await backfillVersionFigures(db);
    if (filled.versions > 0) console.log(`[ace-studio] figures of ${filled.versions} earlier versions stored`);
  } catch (error) {
    console.error("[ace-studio] storing the figures of earlier versions failed; charts miss them until the next start:", error);
  }
  const worker = await startRunWorker(db);
  if (worker) console.log(`[ace-studio] reflector and curator runs: worker ${worker.workerId} started`);
}
