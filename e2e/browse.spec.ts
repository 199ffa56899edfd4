import { expect, test } from "@playwright/test";
import { seedSmallPlaybook } from "./support";

test("a newcomer opens the app and sees the demo playbook by section with its counters", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/playbooks$/);
  await expect(page.getByRole("heading", { level: 1, name: "Playbooks" })).toBeVisible();

  // The index lists the playbooks (the studio overview above it links them too).
  const playbooks = page.getByRole("table", { name: "Playbooks" });
  const demoRow = playbooks.getByRole("row").filter({ has: page.getByRole("link", { name: "Customer service (demo)" }) });
  await expect(demoRow).toContainText("6");
  await playbooks.getByRole("link", { name: "Customer service (demo)" }).click();

  await expect(page.getByRole("heading", { level: 1, name: "Customer service (demo)" })).toBeVisible();
  const list = page.getByRole("list", { name: "Bullets" });
  // Sorted by position, the list reads section by section: one header per section, 6 in the demo.
  await expect(list.getByRole("heading", { level: 3 })).toHaveCount(6);
  await expect(list.getByRole("link")).toHaveCount(6);

  // Counters are shown (kayba skillbooks carry them), never "no counters".
  const first = list.getByRole("listitem").filter({ hasText: "[customer_service_structure-00001]" });
  await expect(first.getByTitle("1 helpful")).toBeVisible();
  await expect(first.getByTitle("0 harmful")).toBeVisible();
  await expect(first.getByTitle("0 neutral")).toBeVisible();
  await expect(first.getByText("In use")).toBeVisible();
  await expect(list.getByText("no counters")).toHaveCount(0);
});

test("a playbook without counters says so instead of showing zeros", async ({ page }) => {
  await page.goto("/playbooks");
  await page.getByRole("table", { name: "Playbooks" }).getByRole("link", { name: "AppWorld initial (demo)" }).click();
  const list = page.getByRole("list", { name: "Bullets" });
  await expect(list.getByRole("link").first()).toBeVisible();
  // The list is virtualised: the rows it shows change as it measures them, so the check is per row,
  // not a count of rows against a count of labels (that compared two moments and timed out once in CI).
  // Every bullet row it shows says "no counters".
  const rows = list.getByRole("listitem").filter({ has: page.getByRole("link") });
  await expect(rows.first()).toContainText("no counters");
  await expect(rows.filter({ hasNotText: "no counters" })).toHaveCount(0);
  await expect(list.getByTitle(/helpful$/)).toHaveCount(0);
});

test.describe("a page for something that does not exist answers 404 with the not-found page", () => {
  const UNKNOWN = "00000000-0000-4000-8000-000000000000";
  for (const path of [
    `/playbooks/${UNKNOWN}`,
    "/playbooks/not-an-id",
    `/playbooks/${UNKNOWN}/history`,
    `/traces/${UNKNOWN}`,
    "/traces/nope",
    `/runs/${UNKNOWN}`,
  ]) {
    test(path, async ({ page }) => {
      const response = await page.goto(path);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    });
  }

  test("a version after the playbook's current one", async ({ page }) => {
    const playbookId = await seedSmallPlaybook();
    const response = await page.goto(`/playbooks/${playbookId}/history/99`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    // The versions it has still open.
    expect((await page.goto(`/playbooks/${playbookId}/history/1`))?.status()).toBe(200);
  });

  test("its link leads back to the playbooks", async ({ page }) => {
    await page.goto(`/playbooks/${UNKNOWN}`);
    await page.getByRole("link", { name: "Back to playbooks" }).click();
    await expect(page).toHaveURL(/\/playbooks$/);
  });
});

test("at 390 px wide every top-bar link can be reached and followed", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/playbooks");
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const name of ["Traces", "Runs", "Experiments", "Playbooks"]) {
    const link = nav.getByRole("link", { name, exact: true });
    await link.scrollIntoViewIfNeeded();
    await expect(link).toBeInViewport();
    await link.click();
    await expect(page).toHaveURL(new RegExp(`/${name.toLowerCase()}$`));
  }
  // The brand stays a link home, by its name, without taking the row's width.
  await expect(page.getByRole("link", { name: "ACE Studio" })).toBeVisible();
});
