// The web server's background worker for reflector and curator runs and the daily retention run
// (started by server/startup.ts).
import { getEnv } from "@/server/config/env";
import type { Db } from "@/server/db/client";
import { recentlyServing } from "@/server/http/activity";
import { JobWorker } from "@/server/jobs/worker";
import { retentionHandlers, scheduleRetention } from "@/server/retention/service";
import { failAbandonedRuns, runHandlers, sweepOrphanTraces } from "./service";
import { runProviderFor } from "./providers";

const SWEEP_INTERVAL_MS = 5 * 60_000;
/** A request that ended this recently still counts as serving: agents' next requests are close behind. */
const SERVING_WINDOW_MS = 250;

const globalForRuns = globalThis as typeof globalThis & { __aceRunWorker?: JobWorker };

export async function startRunWorker(db: Db): Promise<JobWorker | null> {
  // ACE_RUN_CONCURRENCY: runs at once in this process (default 2); 0 turns the worker off.
  const concurrency = getEnv().runConcurrency;
  if (concurrency === 0 || globalForRuns.__aceRunWorker) return globalForRuns.__aceRunWorker ?? null;
  // A bad provider setting fails here, at start, with the variable's name, not in every run.
  const provider = runProviderFor(db);
  console.log(
    `[ace-studio] runs use the ${provider.name === "offline" ? "offline provider (rule-based, no LLM)" : `OpenAI-compatible provider (${provider.label})`}`,
  );
  const abandoned = await failAbandonedRuns(db);
  if (abandoned > 0)
    console.log(`[ace-studio] ${abandoned} run(s) lost their worker before the last stop: marked failed, retry them from the Runs page`);
  const swept = await sweepOrphanTraces(db);
  if (swept > 0) console.log(`[ace-studio] queued ${swept} trace(s) stored before the last stop but never reflected`);
  // Every instance asks for the same day's retention job (its key names the day): one job, not one per instance.
  const retention = await scheduleRetention(db);
  console.log(`[ace-studio] retention runs next at ${retention.runAt.toISOString()}`);
  const worker = new JobWorker(db, {
    handlers: { ...runHandlers(), ...retentionHandlers() },
    concurrency,
    // Agents' polls and trace posts come first: under load the queue waits, and catches up when they pause.
    yieldTo: { busy: () => recentlyServing(SERVING_WINDOW_MS), perSecond: getEnv().runsPerSecondWhileServing },
  });
  worker.start();
  // Traces of a playbook that reflects automatically but with no run are picked up here too, not
  // only at the next start (ingestion queues its runs with the traces; these are older, or stored
  // while the playbook did not reflect automatically).
  const sweep = setInterval(() => {
    sweepOrphanTraces(db).catch((error: unknown) => console.error("[ace-studio] sweeping unqueued traces failed:", error));
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  globalForRuns.__aceRunWorker = worker;
  return worker;
}
