// What every run does around its role: budget and circuit checks before, the run record during,
// and the outcome for the job queue after. reflect.ts and curate.ts supply the role itself.
import type { Db } from "@/server/db/client";
import type { JobOutcome } from "@/server/jobs/worker";
import { AppError } from "@/server/errors/app-error";
import { LlmError } from "@/server/llm/errors";
import type { CompletionRequest, CompletionResult } from "@/server/llm/types";
import { readSettings } from "@/server/playbooks/manage";
import type { PlaybookSettings } from "@/server/playbooks/schemas";
import { copyRemovalReason, removeTraceCopies } from "@/server/traces/copies";
import { budgetUsage } from "./budget";
import type { RunProvider } from "./providers";
import * as repo from "./repository";

/** How long a run waits before looking at an exhausted budget again. */
const BUDGET_RECHECK_MS = 60 * 60_000;
const HALF_OPEN_RECHECK_MS = 500;

export interface RunContext {
  db: Db;
  provider: RunProvider;
  runId: string;
  playbookId: string;
  /** The traces the run was queued with: a reflector run's one trace (a curator run chooses its own). */
  traceIds: readonly string[];
  /** The playbook's settings as the run started. */
  settings: PlaybookSettings;
  /** The job attempt this is and how many the queue allows; the last failed attempt fails the run. */
  attempt: number;
  maxAttempts: number;
  /**
   * Renews the job's lease and says whether this worker still holds it: asked right before a write
   * that must not happen twice (a reflection's tags), since a worker held up past its lease may find
   * its job taken by another.
   */
  holdsLease(): Promise<boolean>;
}

/** What a role reports back: a finished run record, minus the bookkeeping. */
export interface RoleResult {
  output: unknown;
  deltaId: string | null;
}

/** The messages and answers of every LLM call of a run, kept even when a later call fails. */
export class Exchange {
  readonly prompt: unknown[] = [];
  readonly rawResponse: string[] = [];
  inputTokens = 0;
  outputTokens = 0;
  costUsd: number | null = null;
  latencyMs = 0;

  constructor(private readonly context: RunContext) {}

  /** One call to the provider; throws LlmError (retried by the queue) and keeps what came back. */
  async complete<T>(request: CompletionRequest<T>): Promise<CompletionResult<T>> {
    const { provider, db, runId } = this.context;
    if (provider.name !== "openai") throw new Error("The offline provider makes no LLM calls.");
    this.prompt.push(request.messages);
    const result = await provider.llm.complete(request);
    this.rawResponse.push(result.rawText);
    this.inputTokens += result.inputTokens;
    this.outputTokens += result.outputTokens;
    this.latencyMs += result.latencyMs;
    const cost = provider.costOf(result.model, result.inputTokens, result.outputTokens);
    if (cost !== null) this.costUsd = (this.costUsd ?? 0) + cost;
    await repo.recordExchange(db, runId, {
      prompt: this.prompt as never,
      rawResponse: this.rawResponse,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
    });
    return result;
  }
}

/** The job's lease went to another worker (this one was held up): stop without writing; the other runs it. */
export class LeaseLost extends Error {
  override readonly name = "LeaseLost";
}

/** A role's answer could not be used: the run fails with this reason and is not retried. */
export class RunRejected extends Error {
  override readonly name = "RunRejected";
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs one queued run to its end. Budget or circuit in the way: the run waits (the job is deferred
 * without using an attempt). A provider fault: the job is retried with backoff, and the run fails
 * with the reason only when no attempt is left. Nothing is lost: the trace stays, the run says why.
 */
export async function executeRun(
  db: Db,
  provider: RunProvider,
  job: { runId: string; attempt: number; maxAttempts: number; holdsLease?: () => Promise<boolean> },
  role: (context: RunContext, exchange: Exchange) => Promise<RoleResult>,
): Promise<JobOutcome> {
  const run = await repo.findRunToExecute(db, job.runId);
  if (!run || run.status === "succeeded" || run.status === "failed") return { type: "done" };
  const settings = readSettings(run.settings);

  if (provider.name === "openai") {
    const blocked = (await budgetUsage(db, run.playbookId, settings)).find((usage) => usage.level === "exceeded");
    if (blocked) {
      await repo.markRunQueued(db, run.id, `Waiting: ${blocked.message}`);
      return { type: "defer", untilMs: Date.now() + BUDGET_RECHECK_MS, reason: blocked.message ?? "budget exceeded" };
    }
    const reopensAt = await provider.circuitOpenUntil();
    if (reopensAt !== null) {
      const reason = `Waiting: the provider failed repeatedly, so runs are paused until ${new Date(reopensAt).toISOString()} (circuit breaker open).`;
      await repo.markRunQueued(db, run.id, reason);
      return { type: "defer", untilMs: reopensAt, reason };
    }
  }

  await repo.markRunning(db, run.id, provider.name, provider.modelFor(run.role));
  const context: RunContext = {
    db,
    provider,
    runId: run.id,
    playbookId: run.playbookId,
    traceIds: run.traceIds,
    settings,
    attempt: job.attempt,
    maxAttempts: job.maxAttempts,
    holdsLease: job.holdsLease ?? (async () => true),
  };
  const exchange = new Exchange(context);
  const started = Date.now();
  const sent = () => ({
    prompt: exchange.prompt as never,
    rawResponse: exchange.rawResponse,
    inputTokens: exchange.inputTokens,
    outputTokens: exchange.outputTokens,
  });
  const usage = () => ({
    inputTokens: exchange.inputTokens,
    outputTokens: exchange.outputTokens,
    costUsd: exchange.costUsd,
    latencyMs: provider.name === "openai" ? exchange.latencyMs : Date.now() - started,
    prompt: exchange.prompt as never,
    rawResponse: exchange.rawResponse,
  });
  const finish = async (result: repo.RunResult) => {
    const redacted = await repo.finishRun(db, run.id, result);
    // A trace it read was erased while it ran: the delta it proposed since then quotes it too.
    if (redacted) await db.$transaction((tx) => removeTraceCopies(tx, run.playbookId, run.traceIds, copyRemovalReason(redacted)));
  };
  try {
    const result = await role(context, exchange);
    await finish({ status: "succeeded", output: result.output as never, deltaId: result.deltaId, ...usage() });
    return { type: "done" };
  } catch (error) {
    // Another worker holds the job now and runs it: record nothing (the queue refuses this outcome anyway).
    if (error instanceof LeaseLost) return { type: "retry", error: error.message };
    if (error instanceof RunRejected) {
      await finish({ status: "failed", error: error.message, ...usage() });
      return { type: "fail", error: error.message };
    }
    if (error instanceof LlmError && error.kind === "circuit_open") {
      // Half-open: another run is probing the provider; look again shortly.
      const until = (await provider.circuitOpenUntil()) ?? Date.now() + Math.max(error.retryAfterMs ?? 0, HALF_OPEN_RECHECK_MS);
      await repo.markRunQueued(db, run.id, `Waiting: ${error.message}`, sent());
      return { type: "defer", untilMs: until, reason: error.message };
    }
    // Provider faults, and a playbook too busy to take the delta right now, are worth another attempt.
    const retryable =
      error instanceof LlmError ? error.retryable : error instanceof AppError && (error.code === "BUSY" || error.code === "CONFLICT");
    const message = describe(error);
    if (retryable && job.attempt < job.maxAttempts) {
      await repo.markRunQueued(db, run.id, `Attempt ${job.attempt} of ${job.maxAttempts} failed: ${message} It will be retried.`, sent());
      return {
        type: "retry",
        error: message,
        ...(error instanceof LlmError && error.retryAfterMs ? { retryAfterMs: error.retryAfterMs } : {}),
      };
    }
    const reason = retryable ? `Failed after ${job.attempt} attempts: ${message}` : message;
    await finish({ status: "failed", error: reason, ...usage() });
    return { type: "fail", error: reason };
  }
}
