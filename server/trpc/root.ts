import { deltaRouter } from "@/server/deltas/router";
import { historyRouter } from "@/server/history/router";
import { playbookRouter } from "@/server/playbooks/router";
import { createCallerFactory, createTRPCRouter } from "./init";

export const appRouter = createTRPCRouter({
  playbook: playbookRouter,
  delta: deltaRouter,
  history: historyRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls without HTTP: tests, the CLI, server components. */
export const createCaller = createCallerFactory(appRouter);
