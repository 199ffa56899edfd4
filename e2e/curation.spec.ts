// Curation end to end: editing in the browser, the approval queue and the history. Each test
// seeds its own small playbook over the API and works in that playbook's queue only.
import { expect, test, type Page } from "@playwright/test";
import { api, openPage, openPlaybook, openPlaybookTab, proposeDelta, seedSmallPlaybook, SMALL_PLAYBOOK, waitForApp } from "./support";

function bulletList(page: Page) {
  return page.getByRole("list", { name: "Bullets" });
}

function deltaPanel(page: Page) {
  return page.getByRole("article", { name: "Delta" });
}

function playbookTab(page: Page, name: string | RegExp) {
  return page.getByRole("navigation", { name: "Playbook" }).getByRole("link", { name });
}

test("editing a bullet in place saves it as a new version, and the history shows the edit with its author", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  await openPlaybook(page, playbookId);
  await bulletList(page)
    .getByRole("link", { name: /\[str-00001\]/ })
    .click();

  const sheet = page.getByRole("dialog", { name: "[str-00001]" });
  await sheet.getByRole("button", { name: "Edit", exact: true }).click();
  const editor = sheet.getByRole("textbox", { name: "Bullet content" });
  await editor.fill("Always verify data types and units before processing numeric fields.");
  await sheet.getByLabel(/^Why/).fill("Units matter as much as types");
  await editor.press("Control+Enter");

  await expect(page.getByText("Saved as version 2.")).toBeVisible();
  await expect(sheet.getByRole("region", { name: "Content" })).toContainText(
    "Always verify data types and units before processing numeric fields.",
  );
  // The sheet's own history lists the new version.
  await expect(sheet.getByRole("link", { name: "Version 2: see its changes" })).toBeVisible();

  await page.keyboard.press("Escape");
  await expect(sheet).toBeHidden();
  await expect(bulletList(page).getByRole("link", { name: /\[str-00001\]/ })).toContainText("types and units");
  await expect(page.getByText("Version 2", { exact: true })).toBeVisible();
  await playbookTab(page, "History").click();
  const latest = page.getByRole("region", { name: "Versions" }).getByRole("listitem").first();
  await expect(latest).toContainText("Version 2");
  await expect(latest).toContainText("local user");
  await expect(latest).toContainText("Units matter as much as types");
  // The diff of version 2: the added words marked as inserted.
  const changes = page.getByRole("region", { name: "Section strategies_and_insights" });
  await expect(changes.locator("ins")).toContainText(["and units"]);
});

test("approving a pending delta in the queue adds its bullet, bumps the version and shows in the history diff", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const content = "Cache the list of supported currencies per session.";
  await proposeDelta(playbookId, [{ type: "add", section: "strategies_and_insights", content }], { rationale: "Currency lookups repeat" });

  await openPlaybookTab(page, playbookId, "review");
  await expect(playbookTab(page, /Review/)).toContainText("1 pending");
  const panel = deltaPanel(page);
  await expect(panel).toContainText("Currency lookups repeat");
  await expect(panel.locator("ins")).toHaveText(content);
  await panel.getByRole("button", { name: "Approve", exact: true }).click();

  await expect(page.getByText("Delta approved and applied as version 2.")).toBeVisible();
  await expect(page.getByText("All caught up")).toBeVisible();

  await playbookTab(page, "Bullets").click();
  await expect(bulletList(page).getByRole("link", { name: /\[str-00005\]/ })).toContainText(content);
  await expect(page.getByText("Version 2", { exact: true })).toBeVisible();

  await playbookTab(page, "History").click();
  const latest = page.getByRole("region", { name: "Versions" }).getByRole("listitem").first();
  await expect(latest).toContainText("Version 2");
  await expect(latest).toContainText("+1 added");
  await expect(page.getByRole("region", { name: "Section strategies_and_insights" })).toContainText(`[str-00005]${content}`);
});

test("rejecting a delta with a reason moves it to rejected with that reason shown", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const deltaId = await proposeDelta(playbookId, [{ type: "remove", bulletId: "str-00003", reason: "Too slow" }], {
    rationale: "Pagination makes the agent slow",
  });

  await openPlaybookTab(page, playbookId, "review");
  await deltaPanel(page).getByRole("button", { name: "Reject…" }).last().click();
  const dialog = page.getByRole("dialog", { name: "Reject this delta" });
  await dialog.getByLabel("Reason").fill("Pagination is required for correct answers");
  await dialog.getByRole("button", { name: "Reject delta" }).click();

  await expect(page.getByText("Delta rejected. The playbook is unchanged.")).toBeVisible();
  await page.getByRole("group", { name: "Show deltas" }).getByRole("button", { name: "Rejected" }).click();
  const panel = deltaPanel(page);
  await expect(panel).toContainText("Rejected");
  await expect(panel).toContainText("Pagination is required for correct answers");
  expect((await api.delta.get.query({ deltaId })).status).toBe("rejected");
  expect((await api.playbook.bullet.query({ playbookId, externalId: "str-00003" })).status).toBe("active");
});

test("approving only one of two operations applies that one and rejects the other", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const kept = "Log the request id of every failed API call.";
  const dropped = "Ask the user before retrying any API call.";
  const deltaId = await proposeDelta(playbookId, [
    { type: "add", section: "strategies_and_insights", content: kept },
    { type: "add", section: "common_mistakes_to_avoid", content: dropped },
  ]);

  await openPlaybookTab(page, playbookId, "review");
  const panel = deltaPanel(page);
  await panel.getByRole("checkbox", { name: "Include operation 2 in the approval" }).uncheck();
  await expect(panel).toContainText("the other 1 will be rejected");
  await panel.getByRole("button", { name: "Approve 1 of 2" }).click();

  await expect(page.getByText("(1 operation approved, 1 rejected)")).toBeVisible();
  const view = await api.delta.get.query({ deltaId });
  expect(view.operations.map((op) => op.status)).toEqual(["approved", "rejected"]);

  await openPlaybook(page, playbookId);
  await expect(bulletList(page)).toContainText(kept);
  await expect(bulletList(page)).not.toContainText(dropped);
});

test("rolling back to an earlier version restores the earlier content as a new version", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  const original = "Retry failed API calls immediately without any backoff.";
  await api.delta.edit.mutate({
    playbookId,
    operations: [{ type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." }],
    reason: "Backoff avoids rate limits",
  });

  await openPlaybookTab(page, playbookId, "history");
  await page.getByRole("region", { name: "Versions" }).getByRole("link", { name: "Version 1", exact: true }).click();
  await page.getByRole("button", { name: "Roll back to v1" }).click();
  const dialog = page.getByRole("dialog", { name: "Roll back to version 1" });
  await dialog.getByLabel("Reason").fill("Backoff made the agent miss deadlines");
  await dialog.getByRole("button", { name: "Roll back to v1" }).click();

  await expect(page.getByText("Rolled back to version 1 as version 3")).toBeVisible();
  await expect(page).toHaveURL(/history\?from=2&to=3$/);
  const latest = page.getByRole("region", { name: "Versions" }).getByRole("listitem").first();
  await expect(latest).toContainText("Version 3");
  await expect(latest).toContainText("Rolled back to version 1: Backoff made the agent miss deadlines");
  // The history keeps version 2, and the diff of version 3 undoes its edit.
  await expect(page.getByRole("region", { name: "Versions" }).getByRole("listitem")).toHaveCount(3);
  await expect(page.getByRole("region", { name: "Section strategies_and_insights" }).locator("del")).toContainText(["exponential"]);

  expect((await api.playbook.bullet.query({ playbookId, externalId: "str-00002" })).content).toBe(original);
  expect((await api.playbook.get.query({ playbookId })).version).toBe(3);
});

test("in the queue j and k move between deltas and a approves the open one", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  // Newest first in the queue: C, B, A.
  for (const name of ["A", "B", "C"]) {
    await proposeDelta(
      playbookId,
      [{ type: "add", section: "strategies_and_insights", content: `Lesson ${name}: check the docs first.` }],
      {
        rationale: `Lesson ${name}`,
      },
    );
  }
  const [deltaC, deltaB, deltaA] = (await api.delta.list.query({ playbookId })).items.map((item) => item.id);

  await openPlaybookTab(page, playbookId, "review");
  const legend = page.getByRole("region", { name: "Keyboard shortcuts" });
  await expect(legend.locator("kbd")).toHaveText(["j", "k", "a", "r", "e"]);
  // The legend lights up once the keys are live (the page has hydrated).
  await expect(legend).toHaveAttribute("data-active", "true");
  const panel = deltaPanel(page);
  await expect(panel).toContainText("Lesson C");

  await page.keyboard.press("j");
  await expect(panel).toContainText("Lesson B");
  await page.keyboard.press("j");
  await expect(panel).toContainText("Lesson A");
  await page.keyboard.press("k");
  await expect(panel).toContainText("Lesson B");
  await expect(page).toHaveURL(new RegExp(`delta=${deltaB}`));

  await page.keyboard.press("a");
  await expect(page.getByText("Delta approved and applied as version 2.")).toBeVisible();
  // The queue moves on to the next delta, and the approved one leaves the pending list.
  await expect(panel).toContainText("Lesson A");
  await expect(page.getByRole("region", { name: "Deltas" }).getByRole("listitem")).toHaveCount(2);
  expect((await api.delta.get.query({ deltaId: deltaB! })).status).toBe("applied");
  expect((await api.delta.get.query({ deltaId: deltaA! })).status).toBe("pending");
  expect((await api.delta.get.query({ deltaId: deltaC! })).status).toBe("pending");
});

test("choosing an origin in the queue narrows the list, and the URL keeps it across a reload", async ({ page }) => {
  const playbookId = await seedSmallPlaybook();
  // A person's direct edit (applied, origin person) and a file proposed for review (pending, origin import:
  // the server sets the origin from who proposes and how, never from the request).
  await api.delta.edit.mutate({
    playbookId,
    operations: [{ type: "update", bulletId: "str-00002", content: "Retry failed API calls with exponential backoff." }],
    reason: "Backoff avoids rate limits",
  });
  await api.playbook.import.mutate({
    content: `${SMALL_PLAYBOOK}[str-00009] helpful=0 harmful=0 :: Check the docs first.\n`,
    format: "ace",
    target: { kind: "existing", playbookId, mode: "propose", baseVersion: 1, rationale: "Docs answer most questions" },
  });

  await openPage(page, `/playbooks/${playbookId}/review?status=all`);
  const list = page.getByRole("region", { name: "Deltas" });
  await expect(list.getByRole("listitem")).toHaveCount(2);

  const origin = page.getByRole("combobox", { name: "Origin" });
  await expect(origin).toHaveText("All origins");
  await origin.click();
  await page.getByRole("option", { name: "Import" }).click();
  await expect(page).toHaveURL(/[?&]origin=import(&|$)/);
  await expect(page).toHaveURL(/[?&]status=all(&|$)/);
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).toContainText("Docs answer most questions");
  await expect(list).toContainText("1 delta from imports");

  await page.reload();
  await waitForApp(page);
  await expect(origin).toHaveText("Import");
  await expect(list.getByRole("listitem")).toHaveCount(1);
  await expect(list).toContainText("Docs answer most questions");

  // Another status keeps the origin; an empty list says which filter left it empty.
  await origin.click();
  await page.getByRole("option", { name: "Person" }).click();
  await expect(list).toContainText("Backoff avoids rate limits");
  await page.getByRole("group", { name: "Show deltas" }).getByRole("button", { name: "Pending" }).click();
  await expect(page).toHaveURL(/[?&]origin=person(&|$)/);
  await expect(list).toContainText("No pending deltas from people yet.");
});
