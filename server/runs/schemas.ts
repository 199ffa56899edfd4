// The reflector and curator runs' wire contract: zod inputs and the shapes procedures return.
// The one file of server/runs that client code may import.
import { z } from "zod";

export const RUN_ROLES = ["reflector", "curator"] as const;
export type RunRole = (typeof RUN_ROLES)[number];

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** manual: a person asked · auto: a trigger (a trace arrived, N reflections piled up) · api: an agent asked. */
export const RUN_TRIGGERS = ["manual", "auto", "api"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const listRunsInput = z.object({
  playbookId: z.uuid().optional(),
  role: z.enum(RUN_ROLES).optional(),
  status: z.enum(RUN_STATUSES).optional(),
  traceId: z.uuid().optional(),
  cursor: z.number().int().min(0).default(0),
  limit: z.number().int().min(1).max(200).default(50),
});

export const runIdInput = z.object({ runId: z.uuid() });

export const reflectNowInput = z.object({
  playbookId: z.uuid(),
  /** The traces to reflect; default every trace of the playbook not reflected yet (the oldest 1,000). */
  traceIds: z.array(z.uuid()).min(1).max(1_000).optional(),
});

export const curateNowInput = z.object({ playbookId: z.uuid() });

export const pauseRunsInput = z.object({ playbookId: z.uuid(), paused: z.boolean() });

const budgetLimit = {
  monthlyTokenBudget: z.number().int().min(1_000).max(10_000_000_000).nullable(),
  monthlyCostBudgetUsd: z.number().min(0.01).max(1_000_000).nullable(),
};
export const studioBudgetSchema = z.object(budgetLimit);
export type StudioBudget = z.infer<typeof studioBudgetSchema>;

export const enqueueResultSchema = z.object({
  runIds: z.array(z.string()),
  message: z.string(),
});
export type EnqueueResult = z.infer<typeof enqueueResultSchema>;

export interface RunListItem {
  id: string;
  playbookId: string;
  playbookName: string;
  role: RunRole;
  status: RunStatus;
  provider: string;
  model: string;
  trigger: string;
  traceCount: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
  latencyMs: number | null;
  attempts: number;
  deltaId: string | null;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface RunPage {
  items: RunListItem[];
  total: number;
  nextCursor: number | null;
}

export interface RunDetail extends RunListItem {
  traceIds: string[];
  reflectionRunIds: string[];
  curatedByRunId: string | null;
  /** The messages sent, one list per round (or, offline, the inputs the rules read). */
  prompt: unknown;
  /** The provider's raw answers, one per round. */
  rawResponse: unknown;
  output: unknown;
  startedAt: Date | null;
  /** When prompt, answers and output were emptied because a trace the run read was erased or expired. */
  redactedAt: Date | null;
  /** "erasure" or "retention". */
  redactedReason: string | null;
  traces: { id: string; task: string; outcome: string; createdAt: Date }[];
  delta: { id: string; status: string; operationCount: number } | null;
}

/** How much of a monthly budget is used; level "warning" from 75 %, "exceeded" at 100 %. */
export interface BudgetUsage {
  scope: "playbook" | "studio";
  tokens: number;
  costUsd: number;
  tokenLimit: number | null;
  costLimitUsd: number | null;
  /** The larger of the two shares used, when a limit is set. */
  share: number | null;
  level: "ok" | "warning" | "exceeded";
  /** A sentence for the UI and for a blocked run. */
  message: string | null;
  monthStart: Date;
}

export interface CircuitView {
  state: "closed" | "open" | "half_open";
  consecutiveFailures: number;
  lastError: string | null;
  reopensAt: Date | null;
}

export interface QueueCounts {
  queued: number;
  running: number;
  failed: number;
}

export interface RunsStatus {
  provider: { name: "offline" | "openai"; reflectorModel: string; curatorModel: string; baseUrl: string | null };
  circuit: CircuitView;
  paused: boolean;
  reflectorMode: "auto" | "manual" | "off";
  curatorMode: "auto" | "manual" | "off";
  curatorFrequency: number;
  /** Reflections waiting for the next curation. */
  uncurated: number;
  unreflected: number;
  /** Jobs of this playbook, and split by role. */
  queue: QueueCounts & { reflector: QueueCounts; curator: QueueCounts };
  budgets: BudgetUsage[];
}
