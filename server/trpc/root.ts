import { deltaRouter } from "@/server/deltas/router";
import { historyRouter } from "@/server/history/router";
import { playbookRouter } from "@/server/playbooks/router";
import { runRouter } from "@/server/runs/router";
import { traceRouter } from "@/server/traces/router";
import { contextRouter } from "@/server/context/router";
import { metricsRouter } from "@/server/metrics/router";
import { experimentRouter } from "@/server/experiments/router";
import { retentionRouter } from "@/server/retention/router";
import { apiKeyRouter } from "@/server/apikeys/router";
import { auditRouter } from "@/server/audit/router";
import { storageRouter } from "@/server/storage/router";
import { authRouter, userRouter } from "@/server/auth/router";
import { createCallerFactory, createTRPCRouter } from "./init";

export const appRouter = createTRPCRouter({
  playbook: playbookRouter,
  delta: deltaRouter,
  history: historyRouter,
  traces: traceRouter,
  context: contextRouter,
  runs: runRouter,
  auth: authRouter,
  users: userRouter,
  apiKeys: apiKeyRouter,
  audit: auditRouter,
  storage: storageRouter,
  metrics: metricsRouter,
  experiments: experimentRouter,
  retention: retentionRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls without HTTP: tests, the CLI, server components. */
export const createCaller = createCallerFactory(appRouter);
