// The bullets page for someone on a keyboard and someone searching: focus comes back to the row a
// sheet was opened from, a skip link reaches the first bullet, search matches are marked, and a new
// bullet does not cover the page with its sheet.
import { expect, test, type Page } from "@playwright/test";
import { api, openPage, openPlaybook, seedSmallPlaybook } from "./support";

function bulletList(page: Page) {
  return page.getByRole("list", { name: "Bullets" });
}

test("closing a bullet's sheet with Escape returns focus to the row it was opened from", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await openPlaybook(page, playbookId);
  const row = bulletList(page).getByRole("link", { name: /\[str-00003\]/ });
  await row.focus();
  await page.keyboard.press("Enter");
  const sheet = page.getByRole("dialog", { name: "[str-00003]" });
  await expect(sheet).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();
  await expect(row).toBeFocused();
});

test("the first bullet is four key presses away, through the skip links", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await openPlaybook(page, playbookId);
  await page.keyboard.press("Tab");
  await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to the bullets" });
  await expect(skip).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(bulletList(page).getByRole("link", { name: /\[str-00001\]/ })).toBeFocused();
});

test("a search marks where it matched", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await openPage(page, `/playbooks/${playbookId}?q=paginate`);
  const row = bulletList(page).getByRole("link", { name: /\[str-00003\]/ });
  await expect(row.locator("mark")).toHaveText(["Paginate"]);
});

test("adding a bullet leaves the page as it was and offers to open it", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await openPlaybook(page, playbookId);
  await page.getByRole("button", { name: "Add a bullet to strategies_and_insights" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a bullet" });
  await dialog.getByRole("textbox", { name: "Content" }).fill("Log the request id of every failed call.");
  await dialog.getByRole("button", { name: "Add bullet" }).click();
  await expect(page.getByText("Added [str-00005] as version 2.")).toBeVisible();
  await page.waitForTimeout(1_500);
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await page.getByRole("button", { name: "Open" }).click();
  await expect(page.getByRole("dialog", { name: "[str-00005]" })).toBeVisible();
});

test("ids and section names wrap only at their separators, and sections read the same in the list and the sidebar", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openPage(page, "/playbooks");
  await page.getByRole("table", { name: "Playbooks" }).getByRole("link", { name: "Customer service (demo)" }).click();
  const id = bulletList(page).locator("[data-bullet-id]").first();
  // The id's text is whole (no hyphen inserted), and its line breaks fall after "_" or "-".
  await expect(id).toHaveText("[customer_service_structure-00001]");
  await expect(id.locator("wbr")).not.toHaveCount(0);
  const header = bulletList(page).getByRole("heading", { level: 3 }).first();
  await expect(header).toHaveText("customer_service_structure");
  await expect(header).toHaveCSS("text-transform", "none");
});

test("an empty section is deleted from its menu, as a new version", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await api.delta.edit.mutate({ playbookId, reason: "Room for checks", operations: [{ type: "add_section", name: "Verification" }] });
  await openPlaybook(page, playbookId);
  await page.getByRole("button", { name: "Actions for section Verification" }).first().click();
  await page.getByRole("menuitem", { name: "Delete section" }).click();
  await expect(page.getByText("Saved as version 3.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Actions for section Verification" })).toHaveCount(0);
  // A section with bullets offers no deletion.
  await page.getByRole("button", { name: "Actions for section strategies_and_insights" }).first().click();
  await expect(page.getByRole("menuitem", { name: "Delete section" })).toHaveCount(0);
});
