// The LLM cost chart's data: tokens, cost and runs per bucket and role (reflector, curator, the
// agents' own usage), and the totals per role.
import { LLM_ROLES, type LlmRole, type LlmTotals, type MetricsResult } from "@/server/metrics/schemas";
import { BUCKET_START_COLUMN, tableOf, type ColumnOf, type DataTableModel } from "../data-table";
import { ROLE_LABELS } from "@/components/shared/chart-palette";
import { rowsOnBuckets } from "./buckets";

export interface LlmRow {
  start: string;
  /** Input + output tokens per role. */
  tokens: Record<LlmRole, number>;
  costUsd: Record<LlmRole, number>;
  runs: Record<LlmRole, number>;
}

const zeroRoles = (): Record<LlmRole, number> => ({ reflector: 0, curator: 0, agent: 0 });

/** The LLM figures on the outcomes' buckets, so every chart shares its x values. */
export function llmRows(result: Pick<MetricsResult, "llm" | "outcomes">): LlmRow[] {
  return rowsOnBuckets(
    result.outcomes,
    result.llm.buckets,
    (start): LlmRow => ({ start, tokens: zeroRoles(), costUsd: zeroRoles(), runs: zeroRoles() }),
    (row, bucket) => {
      row.tokens[bucket.role] += bucket.inputTokens + bucket.outputTokens;
      row.costUsd[bucket.role] += bucket.costUsd;
      row.runs[bucket.role] += bucket.runs;
    },
  );
}

export function llmTable(rows: readonly LlmRow[], title: string): DataTableModel {
  const roleColumns = LLM_ROLES.flatMap((role): ColumnOf<LlmRow>[] => [
    {
      key: `${role}:runs`,
      label: `${ROLE_LABELS[role]}: ${role === "agent" ? "traces" : "runs"}`,
      kind: "count",
      value: (row) => row.runs[role],
    },
    { key: `${role}:tokens`, label: `${ROLE_LABELS[role]}: tokens`, kind: "count", value: (row) => row.tokens[role] },
    { key: `${role}:cost`, label: `${ROLE_LABELS[role]}: cost (USD)`, kind: "usd", value: (row) => row.costUsd[role] },
  ]);
  return tableOf<LlmRow>(title, [BUCKET_START_COLUMN, ...roleColumns], rows);
}

/** The totals of a role without runs: zeros, and nothing known of failures, retries or latency. */
export function noUsage(role: LlmRole): LlmTotals {
  return {
    role,
    runs: 0,
    failed: null,
    retried: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    uncosted: 0,
    p50LatencyMs: null,
    p95LatencyMs: null,
  };
}

/** A line per role, zeros for a role without runs; failures and retries are unknown for agents (null). */
export function llmTotalsTable(result: Pick<MetricsResult, "llm">, title: string): DataTableModel {
  const totals = LLM_ROLES.map((role) => result.llm.byRole.find((entry) => entry.role === role) ?? noUsage(role));
  return tableOf<LlmTotals>(
    title,
    [
      { key: "role", label: "Role", kind: "text", value: (entry) => ROLE_LABELS[entry.role] },
      { key: "runs", label: "Runs or traces", kind: "count" },
      { key: "failed", label: "Failed", kind: "count" },
      { key: "retried", label: "Retried", kind: "count" },
      { key: "inputTokens", label: "Input tokens", kind: "count" },
      { key: "outputTokens", label: "Output tokens", kind: "count" },
      { key: "costUsd", label: "Cost (USD)", kind: "usd" },
      { key: "uncosted", label: "Without a cost", kind: "count" },
      { key: "p50LatencyMs", label: "Latency p50", kind: "ms" },
      { key: "p95LatencyMs", label: "Latency p95", kind: "ms" },
    ],
    totals,
  );
}
