// Accounts end to end, on a server of its own that requires sign-in (ACE_AUTH=on, a known setup
// token, its own data folder), so the other specs keep their laptop-mode server: the first admin
// with the setup token, inviting a curator and a viewer, the curator approving a delta and the
// viewer refused, an API key created, used by an agent and revoked, and the audit log showing it.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "../server/trpc/root";
import { SMALL_PLAYBOOK, waitForApp } from "./support";
import { E2E_PORT } from "./base-url";

const PORT = E2E_PORT + 1;
const BASE = `http://127.0.0.1:${PORT}`;
const SETUP_TOKEN = "e2e-setup-token-0123456789abcdefghijklmnop";
const PASSWORD = "correct horse battery staple";

let server: ChildProcess;
let dataDir: string;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // A server left on the port would answer for this one, with its own accounts: refuse, saying so.
  const taken = await fetch(`${BASE}/sign-in`).then(
    () => true,
    () => false,
  );
  if (taken) throw new Error(`Port ${PORT} is taken by another server; stop it and rerun.`);
  dataDir = mkdtempSync(join(tmpdir(), "ace-e2e-accounts-"));
  // next itself (not through npx), in its own process group, so stopping the group stops the server.
  server = spawn(process.execPath, [join("node_modules", "next", "dist", "bin", "next"), "start", "-p", String(PORT), "-H", "127.0.0.1"], {
    detached: true,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      ACE_AUTH: "on",
      ACE_SETUP_TOKEN: SETUP_TOKEN,
      ACE_DEMO_SEED: "off",
      NEXT_TELEMETRY_DISABLED: "1",
    },
    stdio: "ignore",
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const up = await fetch(`${BASE}/sign-in`).then(
      (response) => response.ok || response.status === 307,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`The accounts server did not start on ${BASE}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(() => {
  if (server?.pid) process.kill(-server.pid, "SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

/** The tRPC API with a browser context's session cookie, to seed data as that person. */
async function apiOf(context: BrowserContext) {
  const cookie = (await context.cookies(BASE)).map((c) => `${c.name}=${c.value}`).join("; ");
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${BASE}/api/trpc`, transformer: superjson, headers: { cookie } })] });
}

async function signIn(page: Page, email: string) {
  await page.goto(`${BASE}/sign-in`);
  await waitForApp(page);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("button", { name: /^Account:/ })).toBeVisible();
}

/** Invites someone from Settings → Users and accepts the link in a fresh browser context. */
async function invite(admin: Page, browser: Browser, email: string, role: "Viewer" | "Curator") {
  await admin.goto(`${BASE}/settings/users`);
  await waitForApp(admin);
  await admin.getByRole("button", { name: "Invite someone" }).click();
  const dialog = admin.getByRole("dialog", { name: "Invite someone" });
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByRole("combobox", { name: "Role" }).click();
  await admin.getByRole("option", { name: role }).click();
  await dialog.getByRole("button", { name: "Create the invite link" }).click();
  const link = (await admin.getByLabel("Invite link").textContent()) ?? "";
  expect(link).toMatch(/\/invite\/[a-z2-7]+$/);

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(link);
  await waitForApp(page);
  await expect(page.getByText(email)).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password, again").fill(PASSWORD);
  await page.getByRole("button", { name: "Create my account" }).click();
  await expect(page.getByRole("button", { name: new RegExp(`^Account: .*${role}$`) })).toBeVisible();
  return { context, page };
}

test("the first admin needs the setup token; then every page needs a session", async ({ page }) => {
  await page.goto(`${BASE}/playbooks`);
  await expect(page).toHaveURL(/\/setup$/);
  await waitForApp(page);
  await page.getByLabel("Setup token").fill("not the token");
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password, again").fill(PASSWORD);
  await page.getByRole("button", { name: "Create the admin account" }).click();
  await expect(page.getByText("That setup token is not right.")).toBeVisible();

  await page.getByLabel("Setup token").fill(SETUP_TOKEN);
  await page.getByRole("button", { name: "Create the admin account" }).click();
  await expect(page).toHaveURL(/\/playbooks$/);
  await expect(page.getByRole("button", { name: "Account: ada@example.com, Admin" })).toBeVisible();

  // A browser without a session is sent to sign in, and comes back where it was going.
  const stranger = await page.context().browser()!.newContext();
  const other = await stranger.newPage();
  await other.goto(`${BASE}/runs`);
  await expect(other).toHaveURL(/\/sign-in\?next=%2Fruns$/);
  await stranger.close();
});

test("an address to come back to that hides another host leads home, on this site", async ({ page }) => {
  // A tab after the slash: browsers drop it, and "/\t/evil-host" would become "//evil-host".
  const lure = `${BASE}/sign-in?next=%2F%09%2Fevil-host`;
  await page.goto(lure);
  await waitForApp(page);
  await page.getByLabel("Email").fill("ada@example.com");
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${BASE}/playbooks`);
  await expect(page.getByRole("button", { name: /^Account:/ })).toBeVisible();

  // Already signed in, the sign-in page redirects at once: to the same place.
  await page.goto(lure);
  await expect(page).toHaveURL(`${BASE}/playbooks`);
  expect(new URL(page.url()).origin).toBe(BASE);
});

test("a curator approves a delta; a viewer is refused by the server", async ({ page, browser }) => {
  await signIn(page, "ada@example.com");
  const curator = await invite(page, browser, "cleo@example.com", "Curator");
  const viewer = await invite(page, browser, "val@example.com", "Viewer");

  const asCurator = await apiOf(curator.context);
  const { playbookId } = await asCurator.playbook.import.mutate({
    content: SMALL_PLAYBOOK,
    format: "ace",
    target: { kind: "new", name: "support" },
  });
  const content = "Cache the list of supported currencies per session.";
  const proposed = await asCurator.delta.propose.mutate({
    playbookId,
    rationale: "Currency lookups repeat",
    operations: [{ operation: { type: "add", section: "strategies_and_insights", content } }],
  });

  const asViewer = await apiOf(viewer.context);
  await expect(asViewer.delta.approve.mutate({ deltaId: proposed.deltaId })).rejects.toThrow(/Your role is viewer; this needs a curator/);
  await expect(viewer.page.getByRole("button", { name: /Account: .*Viewer/ })).toBeVisible();

  await curator.page.goto(`${BASE}/playbooks/${playbookId}/review`);
  await waitForApp(curator.page);
  await curator.page.getByRole("article", { name: "Delta" }).getByRole("button", { name: "Approve", exact: true }).click();
  await expect(curator.page.getByText("Delta approved and applied as version 2.")).toBeVisible();

  // The history names the curator.
  await curator.page.goto(`${BASE}/playbooks/${playbookId}/history`);
  await waitForApp(curator.page);
  await expect(curator.page.getByRole("region", { name: "Versions" }).getByRole("listitem").first()).toContainText("cleo");
  await curator.context.close();
  await viewer.context.close();
});

test("an admin creates an API key, the agent uses it, and after revoking it the agent gets 401", async ({ page, request }) => {
  await signIn(page, "ada@example.com");
  await page.goto(`${BASE}/settings/api-keys`);
  await waitForApp(page);
  await page.getByRole("button", { name: "Create a key" }).click();
  const dialog = page.getByRole("dialog", { name: "Create an API key" });
  await dialog.getByLabel("Name").fill("support agent");
  await dialog.getByRole("button", { name: "Create the key" }).click();
  const secret = (await page.getByLabel("The new API key").textContent()) ?? "";
  expect(secret).toMatch(/^ace_[a-z2-7]{13}_[a-z2-7]{52}$/);
  await page.getByRole("button", { name: "I have copied it" }).click();

  const context = (key?: string) =>
    request.get(`${BASE}/api/v1/playbooks/support/context?format=text`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  expect((await context()).status()).toBe(401);
  expect((await context(secret)).status()).toBe(200);

  const row = page.getByRole("row", { name: /support agent/ });
  await expect(row).toContainText("active");
  await row.getByRole("button", { name: "Revoke…" }).click();
  await page.getByRole("button", { name: "Revoke the key" }).click();
  await expect(row).toContainText("revoked");
  const refused = await context(secret);
  expect(refused.status()).toBe(401);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/was revoked/);
});

test("the audit log shows who did all of it, filtered in the URL", async ({ page }) => {
  await signIn(page, "ada@example.com");
  await page.goto(`${BASE}/audit`);
  await waitForApp(page);
  const entries = page.getByRole("table", { name: "Audit entries" });
  for (const action of ["user.setup", "user.invite", "user.invite_accept", "apikey.create", "apikey.revoke", "access.denied"]) {
    await expect(entries.getByRole("cell", { name: action, exact: true }).first()).toBeVisible();
  }
  await page.goto(`${BASE}/audit?action=apikey.`);
  await waitForApp(page);
  await expect(entries.getByRole("cell", { name: "user.setup", exact: true })).toHaveCount(0);
  await expect(entries.getByRole("cell", { name: "apikey.revoke", exact: true })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download CSV" }).click();
  expect((await download).suggestedFilename()).toMatch(/^ace-studio-audit-.*\.csv$/);
});
