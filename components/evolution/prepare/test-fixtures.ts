// Metrics results for the prepare tests: three daily buckets and small factories for the parts.
import type { LlmTotals, MetricsResult, ReviewBucket, VersionPoint } from "@/server/metrics/schemas";
import { noUsage } from "./llm-cost";

export const DAYS = ["2026-11-01T00:00:00.000Z", "2026-11-02T00:00:00.000Z", "2026-11-03T00:00:00.000Z"];

export function figures(success: number, failure: number, unknown = 0): MetricsResult["totals"] {
  const decided = success + failure;
  return {
    traces: success + failure + unknown,
    success,
    failure,
    unknown,
    successRate: decided === 0 ? null : success / decided,
    ci95: decided === 0 ? null : ([0.1, 0.9] as [number, number]),
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    p50DurationMs: null,
    p95DurationMs: null,
  };
}

export function bucket(start: string, success: number, failure: number, unknown = 0) {
  return { start, ...figures(success, failure, unknown) };
}

export function version(number: number, createdAt: string, extra: Partial<VersionPoint> = {}): VersionPoint {
  return {
    version: number,
    createdAt,
    origin: "curator",
    author: "curator-model",
    reason: "",
    deltaId: null,
    contentChanged: true,
    countersChanged: false,
    operations: { add: 1 },
    activeBullets: 10 + number,
    archivedBullets: 0,
    sections: [{ id: "s1", name: "strategies", activeBullets: 10 + number }],
    helpful: 0,
    harmful: 0,
    neutral: 0,
    tokens: 100 * number,
    ...extra,
  };
}

/** A review bucket of one origin: zeros but for the counts given. */
export function reviewBucket(start: string, origin: ReviewBucket["origin"], counts: Partial<ReviewBucket> = {}): ReviewBucket {
  const zero = { proposed: 0, approved: 0, autoApplied: 0, rejected: 0, pending: 0, stale: 0, nearDuplicates: 0 };
  return { start, origin, ...zero, medianDecisionMs: null, ...counts };
}

/** One role's LLM usage: none but the figures given; a reflector or curator failed and retried 0 times. */
export function llmUsage(role: LlmTotals["role"], usage: Partial<LlmTotals> = {}): LlmTotals {
  const runs = role === "agent" ? {} : { failed: 0, retried: 0 };
  return { ...noUsage(role), ...runs, ...usage };
}

export function result(patch: Partial<MetricsResult> = {}): MetricsResult {
  const outcomes = [bucket(DAYS[0]!, 30, 8, 2), bucket(DAYS[1]!, 0, 0, 0), bucket(DAYS[2]!, 5, 5)];
  return {
    playbook: "Support",
    playbookId: "0f8fad5b-d9cb-469f-a165-70867728950e",
    bucket: "day",
    from: DAYS[0]!,
    to: "2026-11-04T00:00:00.000Z",
    timezone: "UTC",
    experiment: null,
    variant: null,
    contentOnly: true,
    earliest: DAYS[0]!,
    tokenBudget: 8000,
    totals: figures(35, 13, 2),
    outcomes,
    outcomesByVariant: [],
    versions: [],
    versionsOmitted: 0,
    previousVersion: null,
    counters: [],
    scores: null,
    movers: { rose: [], fell: [] },
    churn: [],
    review: { buckets: [], byOrigin: [] },
    llm: { buckets: [], byRole: [] },
    ...patch,
  };
}
