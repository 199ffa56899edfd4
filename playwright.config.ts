// End-to-end tests against a production build (`next build` runs first; see package.json).
// Every run gets a fresh, empty embedded database in a temp folder, so it starts from the
// first-run demo seed and never touches a developer's data.
import { defineConfig } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { BASE_URL, E2E_PORT as PORT } from "./e2e/base-url";
import { CHROMIUM, CHROMIUM_ARGS } from "./server/testing/chromium";

// The config is loaded by the runner and again by each worker; the env var makes them share one folder.
process.env.ACE_E2E_DATA_DIR ??= mkdtempSync(join(tmpdir(), "ace-e2e-"));

export default defineConfig({
  testDir: "./e2e",
  outputDir: "./e2e/.artifacts/results",
  fullyParallel: false,
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { outputFolder: "./e2e/.artifacts/report", open: "never" }]],
  use: {
    baseURL: BASE_URL,
    viewport: { width: 1400, height: 900 },
    acceptDownloads: true,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
  },
  webServer: {
    // Loopback, as npm start binds: the specs run in laptop mode (no sign-in; accounts.spec.ts starts its own server).
    command: `npx next start -p ${PORT} -H 127.0.0.1`,
    url: `${BASE_URL}/playbooks`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: "pipe",
    stderr: "pipe",
    env: {
      DATA_DIR: process.env.ACE_E2E_DATA_DIR,
      // An inherited DATABASE_URL would point the server at a shared PostgreSQL instead.
      DATABASE_URL: "",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
