// Retention (issue 16 §2) as an admin sees it: back-dated traces show up in "What the next run will
// remove", Run retention now deletes them and says so, the recent trace stays, and a retention of
// 0 days is refused with the reason.
import { expect, test } from "@playwright/test";
import { openPage, postTraces, runsPending, seedSmallPlaybook } from "./support";

const DAY_MS = 86_400_000;

test("back-dated traces past the retention are listed, removed by Run retention now, and the recent one stays", async ({
  page,
  request,
}) => {
  const name = `Retention ${Date.now()}`;
  const playbookId = await seedSmallPlaybook(name);
  const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();
  await postTraces(request, [
    ...[45, 50, 60].map((days) => ({ playbook: name, task: `Old task ${days}`, outcome: "success" as const, timestamp: daysAgo(days) })),
    { playbook: name, task: "Recent task", outcome: "success", timestamp: daysAgo(1) },
  ]);
  // A trace not reflected yet is never removed: wait for the reflector.
  await expect.poll(() => runsPending(playbookId), { timeout: 90_000, intervals: [500, 1_000] }).toBe(0);

  await openPage(page, "/settings/retention");
  const preview = page.getByRole("region", { name: "What the next run will remove" });
  const row = preview.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) });
  await expect(row.getByRole("cell").nth(1)).toHaveText("3");

  const runs = page.getByRole("region", { name: "Runs" });
  await runs.getByRole("button", { name: "Run retention now" }).click();
  await page.getByRole("dialog", { name: "Run retention now?" }).getByRole("button", { name: "Run now" }).click();
  await expect(page.getByText("Retention ran")).toBeVisible();
  await expect(runs.getByRole("listitem").filter({ hasText: name })).toContainText("3 traces");
  await expect(row.getByRole("cell").nth(1)).toHaveText("0");

  await openPage(page, `/traces?playbook=${playbookId}`);
  const rows = page.getByRole("table", { name: "Traces" }).getByRole("rowgroup").last().getByRole("row");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Recent task");
});

test("a studio retention of 0 days is refused with the reason before it can be saved", async ({ page }) => {
  await openPage(page, "/settings/retention");
  const studio = page.getByRole("region", { name: "Studio default" });
  await studio.getByRole("textbox", { name: "Traces" }).fill("0");
  await expect(studio.getByRole("alert")).toContainText("at least 1 day");
  await expect(studio.getByRole("button", { name: "Save studio default" })).toBeDisabled();
  await openPage(page, "/settings/retention");
  await expect(studio.getByRole("textbox", { name: "Traces" })).toHaveValue("30");
});
