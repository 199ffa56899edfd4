import { playbookRouter } from "@/server/playbooks/router";
import { createCallerFactory, createTRPCRouter } from "./init";

export const appRouter = createTRPCRouter({
  playbook: playbookRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls without HTTP: tests, the CLI, server components. */
export const createCaller = createCallerFactory(appRouter);
