import { expect, test, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { APPWORLD_TRAINED, openPlaybook, readAcePlaybook, seedPlaybook } from "./support";

const fixture = readAcePlaybook(APPWORLD_TRAINED);
let playbookId: string;

test.beforeAll(async () => {
  playbookId = await seedPlaybook(APPWORLD_TRAINED);
});

function bulletList(page: Page) {
  return page.getByRole("list", { name: "Bullets" });
}

test("finding a bullet by its id shows just that bullet", async ({ page }) => {
  await openPlaybook(page, playbookId);
  await page.getByRole("searchbox", { name: /Search bullets/ }).fill("shr-00021");

  await expect(page).toHaveURL(/[?&]q=shr-00021/);
  await expect(page.getByText("1 of 318 bullets")).toBeVisible();
  const rows = bulletList(page).getByRole("link");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("[shr-00021]");
});

test("finding bullets by text shows every bullet that mentions it, and only those", async ({ page }) => {
  const text = "datetime";
  const expected = readFileSync(APPWORLD_TRAINED, "utf8")
    .split("\n")
    .filter((line) => /^\[/.test(line) && line.toLowerCase().includes(text)).length;
  expect(expected).toBeGreaterThan(1);

  await openPlaybook(page, playbookId);
  await page.getByRole("searchbox", { name: /Search bullets/ }).fill(text);
  await expect(page.getByText(`${expected} of 318 bullets`)).toBeVisible();
  const rows = bulletList(page).getByRole("link");
  await expect(rows).toHaveCount(expected);
  for (const row of await rows.all()) await expect(row).toContainText(new RegExp(text, "i"));

  // The back button returns to the unfiltered list.
  await page.goBack();
  await expect(page.getByText("318 bullets", { exact: true })).toBeVisible();
  await expect(page.getByRole("searchbox", { name: /Search bullets/ })).toHaveValue("");
});

test("filtering to one section shows only its bullets", async ({ page }) => {
  const name = "VERIFICATION CHECKLIST";
  const ids = fixture.bySection.get(name)!;
  await openPlaybook(page, playbookId);
  await page
    .getByRole("navigation", { name: "Sections" })
    .getByRole("button", { name: new RegExp(`^${name}`) })
    .click();

  await expect(page).toHaveURL(/[?&]section=[0-9a-f-]{36}/);
  await expect(page.getByText(`${ids.length} of 318 bullets`)).toBeVisible();
  const list = bulletList(page);
  await expect(list.getByRole("heading", { level: 3 })).toHaveText([name]);
  const shown = await list.locator("[data-bullet-id]").allTextContents();
  expect(shown.length).toBeGreaterThan(0);
  for (const id of shown) expect(ids).toContain(id.slice(1, -1));
});

test("on a phone the section filter is a select and does the same", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const name = "USEFUL CODE SNIPPETS AND TEMPLATES";
  const ids = fixture.bySection.get(name)!;
  await openPlaybook(page, playbookId);
  await expect(page.getByRole("navigation", { name: "Sections" })).toBeHidden();
  await page.getByRole("combobox", { name: "Section" }).click();
  await page.getByRole("option", { name: new RegExp(`^${name}`) }).click();
  await expect(page.getByText(`${ids.length} of 318 bullets`)).toBeVisible();
  const shown = await bulletList(page).locator("[data-bullet-id]").allTextContents();
  for (const id of shown) expect(ids).toContain(id.slice(1, -1));
});

test("every one of the 318 bullet ids and all 8 sections can be found by scrolling the list", async ({ page }) => {
  await openPlaybook(page, playbookId);
  const list = bulletList(page);
  await expect(list.getByRole("link").first()).toBeVisible();

  const ids = new Set<string>();
  const sections = new Set<string>();
  // The list is virtualised: only rows near the viewport exist, so collect while scrolling down.
  for (let step = 0; step < 400; step += 1) {
    for (const text of await list.locator("[data-bullet-id]").allTextContents()) ids.add(text.slice(1, -1));
    for (const text of await list.getByRole("heading", { level: 3 }).allTextContents()) sections.add(text);
    const atEnd = await page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);
    if (atEnd && (await page.getByText(/^End of the list/).isVisible())) break;
    // Scroll, then wait until the browser has painted twice: the virtualiser renders the new rows
    // in the frame after the scroll event.
    await page.evaluate(async () => {
      window.scrollBy(0, window.innerHeight * 0.8);
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    });
  }

  expect(ids.size).toBe(318);
  expect([...ids].sort()).toEqual([...fixture.ids].sort());
  expect([...sections].sort()).toEqual([...fixture.sections].sort());
});

test("opening a bullet shows its detail and the URL can be shared", async ({ page, context }) => {
  await openPlaybook(page, playbookId);
  await bulletList(page)
    .getByRole("link", { name: /\[shr-00021\]/ })
    .click();

  const sheet = page.getByRole("dialog", { name: "[shr-00021]" });
  await expect(sheet).toBeVisible();
  await expect(sheet).toContainText("always use dynamic date calculations");
  await expect(sheet).toContainText("STRATEGIES AND HARD RULES");
  await expect(sheet).toContainText("the source had no counters");
  await expect(page).toHaveURL(/[?&]bullet=shr-00021/);

  // The same URL in a new tab opens straight onto the bullet.
  const shared = await context.newPage();
  await shared.goto(page.url());
  await expect(shared.getByRole("dialog", { name: "[shr-00021]" })).toContainText("always use dynamic date calculations");
  await shared.close();

  // Closing removes the parameter again.
  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();
  await expect(page).not.toHaveURL(/bullet=/);
});
