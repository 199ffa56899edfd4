import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

// Two projects: pure unit tests (beside the code they test) and integration tests
// (*.int.test.ts) that run against real databases: embedded PGlite and PostgreSQL.
export default defineConfig({
  resolve: { alias: { "@": root.replace(/\/$/, "") } },
  test: {
    // A playbook state's bullets compare by their entries, layered or not (server/ace/delta/layered-map.ts).
    setupFiles: ["server/testing/equality.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["server/**/*.test.ts", "components/**/*.test.ts"],
          exclude: ["**/*.int.test.ts", "node_modules/**"],
          environment: "node",
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          include: ["server/**/*.int.test.ts"],
          environment: "node",
          globalSetup: ["server/testing/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One database per run, shared by the files: run files one after another.
          fileParallelism: false,
        },
      },
    ],
  },
});
