import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
import { api, APPWORLD_TRAINED, openPlaybook, seedPlaybook } from "./support";

test("importing the AppWorld trained playbook through the UI creates a playbook with 318 bullets in 8 sections", async ({ page }) => {
  await page.goto("/playbooks");
  await page.waitForLoadState("networkidle");
  await page.getByRole("button", { name: "Import", exact: true }).click();

  const dialog = page.getByRole("dialog", { name: "Import a playbook" });
  await dialog.getByLabel("Playbook file").setInputFiles(APPWORLD_TRAINED);
  // The name defaults to the file name without its extension.
  await expect(dialog.getByLabel("Name", { exact: true })).toHaveValue("ace-appworld__appworld_offline_trained_no_gt_playbook");
  await dialog.getByRole("button", { name: "Import", exact: true }).click();

  await expect(page).toHaveURL(/\/playbooks\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("ace-appworld__appworld_offline_trained_no_gt_playbook");
  await expect(page.getByRole("button", { name: /Active bullets/ })).toContainText("318");
  await expect(page.getByText("318 bullets", { exact: true })).toBeVisible();
  // "All sections" plus one entry per section, empty ones included (each with its actions menu).
  await expect(page.getByRole("navigation", { name: "Sections" }).getByRole("listitem")).toHaveCount(1 + 8);

  const playbookId = new URL(page.url()).pathname.split("/").at(-1)!;
  const playbook = await api.playbook.get.query({ playbookId });
  expect(playbook.sections).toHaveLength(8);
  expect(playbook.summary.active).toBe(318);
  expect(playbook.sourceFormat).toBe("ace-plain");
});

test("an import the server rejects shows its message and writes nothing", async ({ page }) => {
  const before = (await api.playbook.list.query()).length;
  await page.goto("/playbooks");
  await page.waitForLoadState("networkidle");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Import a playbook" });
  await dialog.getByRole("tab", { name: "Paste text" }).click();
  await dialog.getByLabel("Playbook text").fill('{"skills": 42}');
  await dialog.getByRole("combobox", { name: "Format" }).click();
  await page.getByRole("option", { name: "kayba JSON skillbook" }).click();
  await dialog.getByRole("button", { name: "Import", exact: true }).click();

  const alert = dialog.getByRole("alert");
  await expect(alert).toContainText("Nothing was written");
  await expect(dialog).toBeVisible();
  expect((await api.playbook.list.query()).length).toBe(before);
});

test("a file that is not UTF-8 (Latin-1) is refused in the dialog, naming the byte, and nothing is written", async ({ page }) => {
  const before = (await api.playbook.list.query()).length;
  await page.goto("/playbooks");
  await page.waitForLoadState("networkidle");
  await page.getByRole("button", { name: "Import", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Import a playbook" });
  // "Caf\xe9" in Latin-1: byte 29 is 0xE9, which UTF-8 never has alone.
  const latin1 = Buffer.from("## strategies\n[str-00001] Caf\xe9 first.\n", "latin1");
  await dialog.getByLabel("Playbook file").setInputFiles({ name: "latin1.txt", mimeType: "text/plain", buffer: latin1 });
  await dialog.getByRole("button", { name: "Import", exact: true }).click();

  const alert = dialog.getByRole("alert");
  await expect(alert).toContainText("latin1.txt: byte 29 (0xE9) is not UTF-8");
  await expect(alert).toContainText("save it as UTF-8. Nothing was imported.");
  expect((await api.playbook.list.query()).length).toBe(before);
});

test("exporting in the source format downloads a file byte-identical to the imported one", async ({ page }) => {
  const playbookId = await seedPlaybook(APPWORLD_TRAINED);
  await openPlaybook(page, playbookId);

  await page.getByRole("button", { name: "Export" }).click();
  const defaultItem = page.getByRole("menuitem", { name: /default/ });
  await expect(defaultItem).toContainText("ACE text without counters");
  const downloading = page.waitForEvent("download");
  await defaultItem.click();
  const download = await downloading;

  expect(download.suggestedFilename()).toMatch(/\.txt$/);
  const downloaded = readFileSync(await download.path());
  expect(downloaded.equals(readFileSync(APPWORLD_TRAINED))).toBe(true);
});
