// Whether this process can use its database now: one round trip, bounded in time. GET /api/v1/health
// (server/http/health.ts) asks it for load balancers and orchestrators.
import { performance } from "node:perf_hooks";
import { formatDuration } from "@/server/ace/text/format";
import type { Db } from "./client";

export type DatabaseCheck = { status: "ok"; latencyMs: number } | { status: "failed"; reason: string; error?: unknown };

/**
 * `SELECT 1` on the app's client. It fails when the database refuses it or has not answered within
 * `timeoutMs`. The query itself is not cancelled (on PGlite it waits behind the statement holding
 * the one connection); the answer just does not wait for it.
 */
export async function checkDatabase(db: Db, { timeoutMs }: { timeoutMs: number }): Promise<DatabaseCheck> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<{ kind: "timeout" }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), timeoutMs);
  });
  // Settled either way, so a query that fails after the time limit leaves no unhandled rejection.
  const query = db.$queryRaw`SELECT 1`.then(
    () => ({ kind: "answered" as const }),
    (error: unknown) => ({ kind: "refused" as const, error }),
  );
  try {
    const outcome = await Promise.race([query, timedOut]);
    switch (outcome.kind) {
      case "answered":
        return { status: "ok", latencyMs: Math.round((performance.now() - started) * 10) / 10 };
      case "refused":
        return { status: "failed", reason: "The database refused the check; the server's log has the error.", error: outcome.error };
      case "timeout":
        return { status: "failed", reason: `The database did not answer within ${formatDuration(timeoutMs)}.` };
    }
  } finally {
    clearTimeout(timer);
  }
}
