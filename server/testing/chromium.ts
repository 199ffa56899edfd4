// Debian's Chromium as the end-to-end tests (playwright.config.ts) and the bench's browser rows launch
// it: Playwright's own browser download does not work on these machines.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
