// A person's data on request (issue 16 §3): an admin finds a unit's traces from the Traces page,
// downloads them as JSON Lines and deletes them; the other traces stay.
import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { openPage, postTraces, seedSmallPlaybook } from "./support";

const EMAIL = "jane.doe@example.com";

test("an admin finds a person's traces by unit id, downloads them as JSON Lines and deletes them", async ({ page, request }) => {
  const name = `Requests ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);
  await postTraces(request, [
    { playbook: name, externalId: "jane-1", task: "Refund order 1182", unitId: EMAIL, outcome: "success" },
    { playbook: name, externalId: "jane-2", task: "Cancel order 1183", unitId: EMAIL, outcome: "failure" },
    { playbook: name, externalId: "other-1", task: "Track parcel 77", unitId: "user-7" },
  ]);

  await openPage(page, `/traces?playbook=${playbookId}`);
  const rows = page.getByRole("table", { name: "Traces" }).getByRole("rowgroup").last().getByRole("row");
  await expect(rows).toHaveCount(3);

  await page.getByRole("button", { name: "Delete on request" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete a person's traces" });
  await dialog.getByRole("combobox", { name: "Playbook" }).click();
  await page.getByRole("option", { name, exact: true }).click();
  await dialog.getByRole("textbox", { name: /Unit id/ }).fill(EMAIL);
  await dialog.getByRole("button", { name: "Find traces" }).click();
  await expect(dialog.getByText(/^2 traces.* and 0 experiment exposures\.$/)).toBeVisible();

  const [download] = await Promise.all([
    page.waitForEvent("download"),
    dialog.getByRole("link", { name: "Download them as JSON Lines" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^ace-studio-traces-.*\.jsonl$/);
  const records = (await readFile((await download.path()) as string, "utf8"))
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { record: string; externalId: string; unitId: string });
  expect(records.map((record) => record.externalId)).toEqual(["jane-1", "jane-2"]);
  // Stored, and so exported, as the keyed hash: the address itself is nowhere.
  expect(records.every((record) => record.unitId.startsWith("hmac:"))).toBe(true);

  await dialog.getByRole("button", { name: "Delete 2 traces" }).click();
  await expect(page.getByText("Deleted 2 traces and 0 experiment exposures.")).toBeVisible();
  await expect(dialog).toBeHidden();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Track parcel 77");
});
